tshape stats - < examples/image.npy
