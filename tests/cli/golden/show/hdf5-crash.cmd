tshape show tests/fixtures/hdf5/crash_compact.h5 compact --index 3456106000; tshape show tests/fixtures/hdf5/crash_compact.h5 alias
