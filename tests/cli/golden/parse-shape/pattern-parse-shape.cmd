tshape parse-shape 'b _ h w' '(2,3,4,5)'
