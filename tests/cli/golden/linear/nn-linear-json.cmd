tshape --json linear --out-features 3 '(2,4)'
