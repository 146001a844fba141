tshape diff --values tests/fixtures/onnxmap/mlp.pt tests/fixtures/onnxmap/mlp-cf.onnx
