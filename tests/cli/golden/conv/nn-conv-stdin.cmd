printf '(1,3,8,8)\n# comment\n(1,3,2,2)\n(3,8,8)\n' | tshape conv --kernel 3 --out-channels 4
