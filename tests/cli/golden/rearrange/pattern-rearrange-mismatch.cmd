tshape rearrange 'b c h w -> b c h w' '(2,3,4,5)' c=7
