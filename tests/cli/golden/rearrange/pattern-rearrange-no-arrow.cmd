tshape rearrange 'a b' '(2,3)'
