tshape info --summary - < examples/checkpoint.npz
