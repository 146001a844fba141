tshape diff - examples/image.npy < examples/image.npy
