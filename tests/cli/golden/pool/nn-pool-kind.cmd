tshape pool --kind min --kernel 2 '(1,3,5,5)'
