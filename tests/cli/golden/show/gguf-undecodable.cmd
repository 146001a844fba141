tshape show tests/fixtures/values/quant2.gguf iq2_xxs
