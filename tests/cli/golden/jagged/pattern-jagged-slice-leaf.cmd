tshape jagged --slice 1,5 '{(10,20),(30,40)}'
