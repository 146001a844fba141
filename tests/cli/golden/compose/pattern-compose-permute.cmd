tshape compose 'j,i,k' 'i,j,k' '(10,20,30)'
