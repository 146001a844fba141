tshape slice '(10,20)' 0,0 10,1
