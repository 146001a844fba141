tshape iter --origin 9223372036854775807,0 '(2,3)'
