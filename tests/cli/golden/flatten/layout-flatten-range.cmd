tshape flatten 0 3 '(2,3,4)'
