tshape info tests/fixtures/npy/structured.npy tests/fixtures/npy/structured_object.npy
