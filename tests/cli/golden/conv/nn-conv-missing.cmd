tshape conv --kernel 3 '(1,3,7,7)'
