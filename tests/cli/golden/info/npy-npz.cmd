tshape info tests/fixtures/npy/mixed.npz
