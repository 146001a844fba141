tshape norm '( 3 , 4L , 5 )' '[3]' ' 5 ' '()' && tshape --json norm '(3,4)' '(3,)'
