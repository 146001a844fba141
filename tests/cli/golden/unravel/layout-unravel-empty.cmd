tshape unravel '(0,)' 0
