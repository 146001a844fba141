tshape flatten 0 -1 '(2,3,4)'
tshape flatten 1 -1 '(2,3,4)'
tshape flatten 0 1 '(2,3,4)'
tshape flatten 0 -1 '()'
