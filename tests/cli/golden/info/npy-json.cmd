tshape info --json tests/fixtures/npy/be_i4.npy tests/fixtures/npy/scalar.npy tests/fixtures/npy/zero_size.npy tests/fixtures/npy/v3.npy
