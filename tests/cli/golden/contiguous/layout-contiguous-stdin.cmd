printf '(2,3) (24,8)\n(2,3) (8,16)\n(0,2) (0,0)\n(2,3) (8,)\n' | tshape --json contiguous
