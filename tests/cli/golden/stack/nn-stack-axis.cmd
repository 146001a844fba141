tshape stack 3 '(2,3)'
