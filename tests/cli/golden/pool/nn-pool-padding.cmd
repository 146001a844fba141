tshape pool --kernel 2 --padding 2 '(1,3,5,5)'
