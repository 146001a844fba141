tshape stats
