tshape cat
