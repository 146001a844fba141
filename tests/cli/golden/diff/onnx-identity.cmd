tshape diff --values tests/fixtures/onnxmap/dedup.onnx tests/fixtures/onnxmap/dedup.pt
