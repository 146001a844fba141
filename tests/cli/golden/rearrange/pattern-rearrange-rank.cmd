tshape rearrange 'b c h -> b c h' '(2,3,4,5)'
