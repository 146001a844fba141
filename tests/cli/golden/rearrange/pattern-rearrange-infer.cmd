tshape rearrange 'b (h w) -> b h w' '(2,12)'
