printf '(4,3)\n()\n(1,)\n' | tshape --json extend 3
