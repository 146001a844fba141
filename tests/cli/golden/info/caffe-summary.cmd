tshape info --summary tests/fixtures/caffe/net.caffemodel tests/fixtures/caffe/v1.caffemodel tests/fixtures/caffe/mean.binaryproto
