tshape transpose '(2,3,4)'
tshape transpose '(-1,0,1)' '(2,3,4)'
tshape transpose --axes 1,0 '(2,3)' '(4,5)'
