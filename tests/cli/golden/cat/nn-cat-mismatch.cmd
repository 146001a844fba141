tshape cat -1 '(2,3)' '(3,5)'
