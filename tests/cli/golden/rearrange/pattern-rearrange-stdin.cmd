printf '(2,3,4,6)\n(2,3,5,6)\n(2,3)\n' | tshape rearrange 'b c (h h2) w -> b c h h2 w' h2=2
