tshape --json broadcast '(3,1)' '(1,4)'
