tshape iter '(1000000,1000000,1000000)' | head -n 3
