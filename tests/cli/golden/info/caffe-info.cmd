tshape info --filter 'bn1/*' tests/fixtures/caffe/net.caffemodel
