head -c 300000000 /dev/zero | tshape info -
