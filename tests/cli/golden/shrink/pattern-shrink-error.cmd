tshape shrink 7 '(4,3)'
