tshape info tests/fixtures/mxnet/bad_names_count.params
