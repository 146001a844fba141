tshape rearrange 'a (b (c)) -> a b c' '(2,3)'
