tshape reshape --mxnet '(7,-1)' '(2,3,4)'
