tshape info --json tests/fixtures/mxnet/v2_none.nd
