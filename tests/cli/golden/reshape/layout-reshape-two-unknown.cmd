tshape reshape '(-1,-1)' '(2,3,4)'
