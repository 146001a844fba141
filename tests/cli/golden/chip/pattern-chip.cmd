tshape chip '(10,20)' 2
