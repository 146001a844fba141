tshape cat 0 '()' '()'
