tshape info --summary tests/fixtures/hdf5/keras2.h5 tests/fixtures/hdf5/mixed.h5
