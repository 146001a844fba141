tshape eq '(3,)' 3
