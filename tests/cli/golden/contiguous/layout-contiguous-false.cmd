tshape contiguous --strides '(8,16,48)' '(2,3,4)'
