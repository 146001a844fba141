tshape show tests/fixtures/onnx/typed_values.onnx i64
