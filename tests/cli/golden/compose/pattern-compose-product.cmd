tshape compose 'i,j,k,l' 'i,j,k' '(10,20,30)' 'i,j,l' '(10,20,30)'
