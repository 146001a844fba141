tshape view '(6,4)' --strides '(12,1,3)' '(2,3,4)'
