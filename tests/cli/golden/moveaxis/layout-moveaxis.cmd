tshape moveaxis 0 -1 '(2,3,4)'
tshape moveaxis 0,1 -1,-2 '(2,3,4)'
