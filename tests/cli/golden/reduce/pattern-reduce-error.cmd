tshape reduce 'h w -> h c' '(2,3)'
