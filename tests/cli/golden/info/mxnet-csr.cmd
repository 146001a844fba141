tshape info --filter csr tests/fixtures/mxnet/v2_sparse.params
