tshape conv --kernel 9 --out-channels 4 '(1,3,7,7)'
