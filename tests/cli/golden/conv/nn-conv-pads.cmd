tshape conv --kernel 3 --pads 0,1,2,3 --out-channels 2 '(1,1,8,8)'
