tshape unravel '(7,6)' 42
