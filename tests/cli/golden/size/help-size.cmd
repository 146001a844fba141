tshape size --help
