tshape extend -1 '(4,3)'
