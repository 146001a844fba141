tshape iter '(2,3)'
