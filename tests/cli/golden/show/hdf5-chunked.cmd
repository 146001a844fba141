tshape show tests/fixtures/hdf5/chunked.h5 be
