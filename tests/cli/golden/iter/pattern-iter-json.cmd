tshape --json iter '(2,2)'
