tshape scan
