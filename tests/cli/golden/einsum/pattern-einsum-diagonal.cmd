tshape einsum 'ii->i' '(3,3)'
