tshape compose 'i,k' 'i,j,k' '(10,20)'
