tshape info --json tests/fixtures/gguf/good_v2.gguf
