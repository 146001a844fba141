tshape iter --origin 1,2,3 '(2,3)'
