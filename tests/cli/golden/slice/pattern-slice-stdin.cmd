printf '(10,20)\n(3,3)\n(5,)\n' | tshape slice - 4
