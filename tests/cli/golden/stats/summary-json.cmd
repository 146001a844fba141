tshape --json stats -s --filter "q*" tests/fixtures/values/quant.gguf
