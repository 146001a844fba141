tshape rearrange 'a b -> (a b)' '(0,3)'
