tshape --json info --summary tests/fixtures/npy/object.npy
