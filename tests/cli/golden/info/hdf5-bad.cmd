tshape info tests/fixtures/hdf5/bad_truncated.h5
