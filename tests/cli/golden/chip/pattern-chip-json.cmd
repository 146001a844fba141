tshape --json chip '(10,20,30)' 1,0,0 2,20,30
