tshape info -s tests/fixtures/mxnet/v2_dtypes.params
