tshape einsum ii '(3,3)'
