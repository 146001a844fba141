tshape moveaxis 0 3 '(2,3,4)'
