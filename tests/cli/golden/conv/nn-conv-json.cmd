tshape --json conv --kernel 3 --out-channels 8 --spatial 1 '(4,10)' '(2,4,10)'
