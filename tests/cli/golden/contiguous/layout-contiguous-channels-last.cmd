tshape --json contiguous --elements --strides '(60,1,15,3)' '(2,3,4,5)'
