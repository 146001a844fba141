tshape info tests/fixtures/mxnet/mixed_all.params | grep -c 'format *mxnet mixed (legacy, V1, V2, V3)'
