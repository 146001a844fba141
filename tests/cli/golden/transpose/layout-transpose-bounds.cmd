tshape transpose 0,1,3 '(2,3,4)'
