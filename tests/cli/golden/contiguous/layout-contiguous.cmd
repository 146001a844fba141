tshape contiguous --strides '(96,32,8)' '(2,3,4)'
