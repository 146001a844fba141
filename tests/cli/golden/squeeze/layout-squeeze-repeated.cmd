tshape squeeze --axis=1,-1 '(2,1)'
