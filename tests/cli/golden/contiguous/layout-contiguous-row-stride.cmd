tshape contiguous --row-stride 5 '(3,5)'
