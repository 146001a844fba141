tshape jagged --layers 1,1 '(10,20,30)'
