tshape broadcast '(5,1,4)' '(3,1)'
tshape broadcast '(2,1,3)' '(4,1)' '(3,)'
tshape broadcast '(0,)' '(1,)'
