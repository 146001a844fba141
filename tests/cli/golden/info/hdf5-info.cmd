tshape info --filter bf16 tests/fixtures/hdf5/mixed.h5; tshape info --filter chunked tests/fixtures/hdf5/mixed.h5
