tshape reshape --reverse '(-1,)' '(2,3)'
