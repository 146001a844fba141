tshape einsum ij,jk '(2,3)' '(4,4)'
