tshape --json diff --values tests/fixtures/onnxmap/mlp-2d.onnx tests/fixtures/onnxmap/mlp.pt
