tshape diff --values --rename tests/fixtures/onnxmap/keras3-rename.txt tests/fixtures/onnxmap/keras3.weights.h5 tests/fixtures/onnxmap/keras-torch.pt
