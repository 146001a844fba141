tshape pool --kind avg --kernel 2 --dilation 2 '(1,3,5,5)'
