tshape parse-shape '(b c) h w z' '(2,3,4,5)'
