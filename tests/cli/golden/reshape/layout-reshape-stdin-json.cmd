printf '(2,3,4)\n(3,5)\n(7,2)\n' | tshape --json reshape '(-1,2)'
