tshape compose 'i,x' 'i,j' '(10,20)'
