tshape info --filter b tests/fixtures/onnx/good_external.onnx
