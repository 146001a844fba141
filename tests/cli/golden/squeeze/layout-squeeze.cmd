tshape squeeze '(1,3,1)'
tshape squeeze --axis -1 '(1,3,1)'
tshape squeeze --axis '()' '(1,3,1)'
