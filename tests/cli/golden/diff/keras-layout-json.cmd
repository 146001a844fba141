tshape --json diff --rename tests/fixtures/onnxmap/keras-rename.txt tests/fixtures/onnxmap/keras.h5 tests/fixtures/onnxmap/keras-torch.pt
