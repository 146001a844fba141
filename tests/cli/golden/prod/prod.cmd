tshape prod 0 2 '(2,3,4)' && tshape prod 1 -1 '(2,3,4)' && tshape prod 2 2 '(2,3,4)'; tshape prod 0 5 '(2,3,4)'
