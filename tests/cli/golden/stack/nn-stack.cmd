tshape stack 1 '(2,3)' '(2,3)' '(2,3)' && tshape stack -1 '(2,3)' && tshape --json stack 0 '()' '()'
