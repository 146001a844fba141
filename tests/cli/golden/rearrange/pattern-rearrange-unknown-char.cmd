tshape rearrange 'a-b -> a' '(2,)'
