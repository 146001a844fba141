tshape broadcast '(2,3)' '(4,3)'
