tshape diff --structure tests/fixtures/onnxmap/mlp.pt tests/fixtures/onnxmap/mlp-cf.onnx
