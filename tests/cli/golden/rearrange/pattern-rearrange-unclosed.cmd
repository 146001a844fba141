tshape rearrange 'b (c h w -> b' '(2,3)'
