tshape jagged '{10,20}'
