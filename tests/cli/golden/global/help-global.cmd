tshape --help
