tshape matmul '(5,1,3,4)' '(2,4,6)' && tshape matmul '(4,)' '(4,)' && tshape matmul '(4,)' '(2,4,5)'
