tshape unravel '(7,6)' 22
tshape unravel --order F '(7,6)' 22
tshape unravel '()' 0
