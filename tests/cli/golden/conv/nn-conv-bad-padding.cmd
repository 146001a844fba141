tshape conv --kernel 3 --padding full --out-channels 4 '(1,3,7,7)'
