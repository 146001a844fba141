tshape reshape '(7,4)' '(2,3,4)'
