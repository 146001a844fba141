tshape contiguous '(2,3)'
