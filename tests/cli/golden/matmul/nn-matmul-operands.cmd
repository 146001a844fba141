tshape matmul '(2,3)' '(3,4)' '(4,5)'
