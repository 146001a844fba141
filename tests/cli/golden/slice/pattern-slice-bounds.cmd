tshape slice '(10,4)' 0,0 5,5
