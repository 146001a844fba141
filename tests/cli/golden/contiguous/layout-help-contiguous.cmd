tshape contiguous --help
