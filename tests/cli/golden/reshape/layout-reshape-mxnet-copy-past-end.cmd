tshape reshape --mxnet '(0,0,0,0)' '(2,3,4)'
