tshape reshape --help
