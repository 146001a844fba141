tshape reshape --mxnet '(-1,0)' '(10,5,4)'
tshape reshape --mxnet --reverse '(-1,0)' '(10,5,4)'
