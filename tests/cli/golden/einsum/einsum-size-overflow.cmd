tshape einsum 'a,b->ab' '(4294967296,)' '(4294967296,)'
