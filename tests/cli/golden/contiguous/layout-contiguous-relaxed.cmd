tshape --json contiguous --strides '(24,12345,8)' '(2,1,3)'
