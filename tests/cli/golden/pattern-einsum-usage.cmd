tshape einsum ij
