printf 'ij,jk (2,3) (3,4)\nba (2, 3)\n' | tshape --json einsum
