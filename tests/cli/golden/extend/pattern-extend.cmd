tshape extend 2 '(4,3)' '(0,5)'
