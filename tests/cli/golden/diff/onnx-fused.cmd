tshape diff tests/fixtures/onnxmap/net.pt tests/fixtures/onnxmap/net-eval.onnx
