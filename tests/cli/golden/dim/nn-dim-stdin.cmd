printf '(1,2)\n()\n(3,)\n' | tshape dim -1
