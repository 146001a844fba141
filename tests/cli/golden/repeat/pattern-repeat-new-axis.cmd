tshape repeat 'h w -> h w c' '(30,40)' c=3
