printf '(2,)\n(1,x)\n()\n' | tshape iter
