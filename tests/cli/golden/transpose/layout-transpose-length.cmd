tshape transpose 1,0 '(2,3,4)'
