tshape reshape '(-2,12)' '(2,3,4)'
