tshape get 2 '(3,4)' '(3,)'
