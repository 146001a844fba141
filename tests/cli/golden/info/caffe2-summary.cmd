tshape info --summary tests/fixtures/caffe/tensors.pb tests/fixtures/caffe/init_net.pb
