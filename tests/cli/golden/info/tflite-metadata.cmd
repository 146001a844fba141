tshape info --summary --metadata tests/fixtures/tflite/quant.tflite
