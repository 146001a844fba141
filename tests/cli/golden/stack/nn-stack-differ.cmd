tshape stack 0 '(2,3)' '(2,4)'
