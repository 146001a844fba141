tshape flatten 2 1 '(2,3,4)'
