tshape info --summary tests/fixtures/onnx/good_mixed.onnx tests/fixtures/onnx/good_external.onnx
