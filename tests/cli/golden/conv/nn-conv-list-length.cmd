tshape conv --kernel '(3,3,3)' --stride '(1,2)' --out-channels 4 '(1,3,7,7,7)'
