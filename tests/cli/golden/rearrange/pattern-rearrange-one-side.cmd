tshape rearrange 'b c h w -> b c h' '(2,3,4,5)'
