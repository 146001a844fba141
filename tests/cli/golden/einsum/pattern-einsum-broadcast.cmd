tshape einsum ij,j '(2,3)' '(1,)'
