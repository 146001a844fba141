tshape squeeze --axis 0 '(2,1)'
