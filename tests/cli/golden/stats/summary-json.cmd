tshape --json stats -s --filter "[qti]*" tests/fixtures/values/quant.gguf tests/fixtures/values/quant2.gguf
