tshape diff --values tests/fixtures/hdf5/crash_compact.h5 tests/fixtures/hdf5/crash_compact.h5
