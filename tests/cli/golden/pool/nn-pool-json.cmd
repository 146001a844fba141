printf '(1,3,9,9)\n(3,9)\n' | tshape --json pool --kernel 3
