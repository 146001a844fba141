tshape compose 'i,k' 'i,j,k' '(10,20,30)' 'i,j,k' '(10,20,30)'
