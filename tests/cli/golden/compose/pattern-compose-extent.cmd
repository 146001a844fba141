tshape compose 'i,k' 'j,i,k' '(10,20,30)' 'i,j,k' '(10,20,30)'
