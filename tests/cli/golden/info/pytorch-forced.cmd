tshape info --format pytorch tests/fixtures/npy/stored.npz tests/fixtures/npy/float32.npy
