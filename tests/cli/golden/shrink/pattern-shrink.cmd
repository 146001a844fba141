tshape shrink 2 '(4,3)'
