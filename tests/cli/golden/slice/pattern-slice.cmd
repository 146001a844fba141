tshape slice '(10,20)' '(0,0)' '(5,5)'
