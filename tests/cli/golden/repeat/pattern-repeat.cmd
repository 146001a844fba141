tshape repeat 'h w -> (2 h) w' '(4,5)'
