tshape stats tests/fixtures/tflite/dtypes.tflite
