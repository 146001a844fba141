tshape info --all tests/fixtures/tflite/subgraphs.tflite
