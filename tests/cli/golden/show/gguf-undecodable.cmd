tshape show tests/fixtures/values/quant.gguf q2_k
