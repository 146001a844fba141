tshape show - < examples/image.npy
