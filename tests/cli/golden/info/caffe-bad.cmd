tshape info tests/fixtures/caffe/bad_count.caffemodel tests/fixtures/caffe/bad_truncated.pb
