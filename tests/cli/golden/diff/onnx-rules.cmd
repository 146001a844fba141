tshape diff --values tests/fixtures/onnxmap/rules.onnx tests/fixtures/onnxmap/rules.safetensors
