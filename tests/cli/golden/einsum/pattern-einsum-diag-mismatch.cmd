tshape einsum ii '(3,4)'
