tshape info -s -f npy tests/fixtures/npy/bad_magic.npy; tshape info -s -f npz tests/fixtures/npy/v1.npy
