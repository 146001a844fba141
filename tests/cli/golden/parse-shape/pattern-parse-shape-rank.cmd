tshape parse-shape 'b c' '(2,3,4,5)'
