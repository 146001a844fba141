tshape stats tests/fixtures/hdf5/chunked.h5
