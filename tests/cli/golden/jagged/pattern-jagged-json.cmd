tshape --json jagged --layers 1,2 --print '{(60,100),(10,20)}'
