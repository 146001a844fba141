tshape stats tests/fixtures/onnx/typed_pieces.onnx
