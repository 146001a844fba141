tshape size '(2,3)' > /dev/full
