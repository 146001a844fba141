tshape iter --origin=-1,0 '(2,3)'
