tshape view '(5,-1)' --strides '(12,4,1)' '(2,3,4)'
