tshape rearrange --op max 'a -> a' '(2,)'
