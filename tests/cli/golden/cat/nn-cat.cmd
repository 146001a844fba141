tshape cat 1 '(2,3)' '(2,5)' '(2,0)' && tshape cat -2 '(2,3)' '(4,3)'
