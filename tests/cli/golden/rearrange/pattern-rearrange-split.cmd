tshape rearrange 'b c (h h2) w -> b c h h2 w' '(2,3,4,5)' h2=2
