tshape info tests/fixtures/npy/bad_dict.npy 2>&1
