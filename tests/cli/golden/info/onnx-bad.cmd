tshape info tests/fixtures/onnx/bad_absolute.onnx tests/fixtures/onnx/bad_raw_length.onnx tests/fixtures/onnx/bad_short_side.onnx tests/fixtures/onnx/bad_truncated.onnx
