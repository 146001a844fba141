tshape info --metadata tests/fixtures/hdf5/keras2.h5 tests/fixtures/hdf5/crash_attr.h5 tests/fixtures/values/scalar.npy
