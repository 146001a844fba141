tshape info --summary -f onnx tests/fixtures/caffe/tensors.pb; tshape info --summary tests/fixtures/npy/float32.npy -f onnx
