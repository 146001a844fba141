tshape transpose '(1,1,0)' '(2,3,4)'
