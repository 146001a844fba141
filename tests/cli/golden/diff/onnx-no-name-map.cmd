tshape diff --no-name-map tests/fixtures/onnxmap/mlp.pt tests/fixtures/onnxmap/mlp-cf.onnx
