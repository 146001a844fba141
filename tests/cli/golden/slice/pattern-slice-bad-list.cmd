tshape slice '(10,20)' 0,x
