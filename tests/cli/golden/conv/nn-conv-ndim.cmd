tshape conv --kernel 3 --out-channels 4 '(3,7)'
