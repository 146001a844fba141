tshape iter '()' '(0,3)' '(3,)'
