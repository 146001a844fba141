tshape einsum ba '(2,3)'
