tshape reshape --mxnet '(-4,4,-1)' '(6,)'
