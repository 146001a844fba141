tshape info examples/labels.npy > /dev/full
