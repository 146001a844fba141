tshape moveaxis 0,1 2 '(2,3,4)'
