tshape iter --origin 10,10 '(2,3)'
