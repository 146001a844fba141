tshape info --metadata --filter c tests/fixtures/onnx/good_mixed.onnx
