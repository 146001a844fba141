tshape jagged '{(10,20),{(5,)}}'
