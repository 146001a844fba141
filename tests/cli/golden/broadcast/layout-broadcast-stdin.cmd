printf '(3,1) (1,4)\n(2,3) (3,2) (1,)\n() (2,)\n' | tshape broadcast
