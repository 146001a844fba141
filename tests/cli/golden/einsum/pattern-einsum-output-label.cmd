tshape einsum 'ij->k' '(2,3)'
