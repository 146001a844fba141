tshape broadcast '(0,)' '(2,)'
