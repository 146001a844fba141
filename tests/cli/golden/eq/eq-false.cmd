tshape eq '(3,4)' '[4,3]'
