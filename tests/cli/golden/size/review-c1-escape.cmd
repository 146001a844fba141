printf '(2,3)x\302\23331mX\n(4,)\n' | tshape size
