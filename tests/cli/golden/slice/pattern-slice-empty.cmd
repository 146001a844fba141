tshape slice '(10,4)' 2,0 2,4
