tshape parse-shape 'b 4 w' '(2,3,4)'
