tshape diff --values tests/fixtures/onnxmap/net-keep.onnx tests/fixtures/onnxmap/net.safetensors
