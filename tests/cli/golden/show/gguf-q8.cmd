tshape show tests/fixtures/values/quant.gguf q8_0
