tshape formats
