printf '(2,3) (3,4)\n(2,3) (4,5)\n(3,)\n' | tshape matmul
