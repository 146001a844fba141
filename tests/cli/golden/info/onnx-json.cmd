tshape info --json --filter 'pick/*' tests/fixtures/onnx/good_mixed.onnx
