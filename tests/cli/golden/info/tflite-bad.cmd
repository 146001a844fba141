tshape info tests/fixtures/tflite/bad_size.tflite tests/fixtures/tflite/bad_qdim.tflite tests/fixtures/tflite/noweights.tflite
