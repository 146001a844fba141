tshape --version
