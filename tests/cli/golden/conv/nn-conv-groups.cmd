tshape conv --kernel 1 --groups 2 --out-channels 4 '(1,3,7,7)'
