tshape --json strides --dtype '<i2' --order F '(2,3,4)'
