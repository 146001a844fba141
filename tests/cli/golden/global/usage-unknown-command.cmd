tshape frobnicate
