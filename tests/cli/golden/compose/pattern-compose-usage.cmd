tshape compose 'i,k' 'i,k'
