tshape stats --exclude strings tests/fixtures/values/scalar.npy tests/fixtures/hdf5/crash_compact.h5 tests/fixtures/hdf5/chunked.h5
