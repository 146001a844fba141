tshape strides --dtype f3 '(2,3)'
