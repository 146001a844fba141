tshape info --json --filter conv_w tests/fixtures/caffe/init_net.pb
