tshape chip '(10,20)' 0,2 10,3
