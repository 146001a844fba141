tshape einsum 'i...->i' '(2,3,4)'
