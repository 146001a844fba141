tshape stats tests/fixtures/values/quant2.gguf
