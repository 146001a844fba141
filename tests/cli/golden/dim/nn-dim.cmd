tshape dim -1 '(8,3,224,224)' '(5,)' && tshape dim 0 '(8,3)'
