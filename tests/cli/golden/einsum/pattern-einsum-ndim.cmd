tshape einsum ij '(2,3,4)'
