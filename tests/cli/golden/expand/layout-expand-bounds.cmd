tshape expand 3 '(2,3)'
