printf 'ij,jk (2,3) (3,4)\nii->i (3,3)\nij,jk (2,3) (4,4)\nba (2, 3)\nij\n' | tshape --json einsum
