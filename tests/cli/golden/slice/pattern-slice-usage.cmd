tshape slice '(10,20)'
