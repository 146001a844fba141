tshape unravel '(7,6)' -1
