tshape reshape '(0,-1)' '(0,3)'
