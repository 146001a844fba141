tshape dim 2 '(8,3)'
