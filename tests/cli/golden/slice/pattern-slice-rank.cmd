tshape slice '(10,4)' 0,0,0 1,1,1
