tshape info tests/fixtures/mxnet/bad_names_count.params 2>&1
