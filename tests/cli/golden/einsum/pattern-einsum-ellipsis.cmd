tshape einsum '...ij,...jk' '(5,1,2,3)' '(4,3,7)'
