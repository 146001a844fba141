tshape --json compose 'k,i' 'i,j' '(2,3)' 'j,k' '(3,4)'
