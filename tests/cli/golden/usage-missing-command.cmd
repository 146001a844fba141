tshape
