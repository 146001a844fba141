tshape rearrange 'b h h -> b h' '(2,3,4)'
