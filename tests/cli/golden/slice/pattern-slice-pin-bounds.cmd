tshape slice '(10,20)' 10
