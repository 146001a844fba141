tshape pool --kernel 3 --stride 2 --padding 1 '(1,64,112,112)' && tshape pool --kernel 2 --ceil-mode '(1,3,5,5)' && tshape pool --kind avg --kernel 2 --padding 1 --ceil-mode '(1,3,4)'
