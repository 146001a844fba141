tshape einsum '->' '()' && tshape einsum 'ij->' '(2,3)' && tshape --json einsum '->' '()'
