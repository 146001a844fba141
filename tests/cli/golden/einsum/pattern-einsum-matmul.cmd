tshape einsum ij,jk '(2,3)' '(3,4)'
