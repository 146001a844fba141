tshape pool --kernel 2 '(64,8,8)'; tshape pool --kernel 2 --spatial 2 '(64,8,8)'; tshape conv --kernel 3 --out-channels 4 '(3,8,8)' '(3,8,9)'; tshape pool --kernel '(2,2)' '(64,8,8)'
