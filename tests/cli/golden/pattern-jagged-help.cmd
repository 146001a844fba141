tshape jagged --help
