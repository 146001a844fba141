tshape stats tests/fixtures/values/quant.gguf
