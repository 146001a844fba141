tshape convert - /tmp/tshape-never-written.npz < examples/image.npy; test ! -e /tmp/tshape-never-written.npz
