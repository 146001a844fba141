printf '(2,3)\n(4294967296,4294967296)\n(5,)\n' | tshape norm
