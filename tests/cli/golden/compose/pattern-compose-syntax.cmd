tshape compose 'i,,k' 'i,k' '(10,20)'
