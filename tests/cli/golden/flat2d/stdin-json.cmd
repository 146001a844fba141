printf '(2,3)\n(1,x)\n()\n' | tshape --json flat2d
