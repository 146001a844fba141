tshape einsum 'i1,j' '(2,)' '(3,)'
