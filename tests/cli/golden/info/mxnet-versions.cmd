tshape info -s tests/fixtures/mxnet/legacy_names.nd tests/fixtures/mxnet/v3_scalar.params tests/fixtures/mxnet/v1.params
