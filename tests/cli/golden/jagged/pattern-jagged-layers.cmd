tshape jagged --layers 1,2 '(10,20,30)' '{(60,100),(10,20)}'
