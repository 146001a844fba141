tshape jagged '{(10,20,30),(10,20)}'
