printf '(3,4) (1,2)\n(7,6) 3,4\n(3,4) (1,2,3)\n' | tshape --json ravel
