tshape info --summary tests/fixtures/mxnet/odd_names.params && tshape --json info --summary tests/fixtures/mxnet/odd_names.params && tshape info tests/fixtures/mxnet/odd_names.params | grep '^tests'
