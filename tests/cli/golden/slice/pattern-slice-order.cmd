tshape slice '(10,4)' 3,0 2,4
