tshape info --json tests/fixtures/npy/stored.npz tests/fixtures/npy/compressed.npz tests/fixtures/npy/empty.npz
