tshape conv --kernel 3 --stride 2 --padding 1 --out-channels 64 '(8,3,224,224)' '(1,3,32,32)'
