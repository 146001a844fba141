printf '(2,3)\n# comment\n\n(1,x)\n[4,5,6]\n' | tshape flat2d
