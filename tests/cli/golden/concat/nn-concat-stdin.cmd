printf '(2,3) (4,3)\n(1,) (1,)\n(1,2) (1,)\n' | tshape concat 0
