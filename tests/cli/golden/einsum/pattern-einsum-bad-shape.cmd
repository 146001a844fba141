tshape einsum ij '(2,x)'
