tshape einsum ij,jk '(2,3)'
