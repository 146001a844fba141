tshape chip '(10,20)' 0,2 11,3
