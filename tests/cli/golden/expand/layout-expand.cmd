tshape expand 0,-1 '(2,3)'
tshape expand 1 '(2,3)' '()'
