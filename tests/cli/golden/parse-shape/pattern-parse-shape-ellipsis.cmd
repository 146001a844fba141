tshape parse-shape 'b ... w' '(2,3,4,5)' '(7,1)'
