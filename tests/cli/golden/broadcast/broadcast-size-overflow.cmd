tshape broadcast '(4294967296,1)' '(1,4294967296)'
