tshape reshape --mxnet '(5,5)' '(2,3,4)'
