tshape info --summary tests/fixtures/gguf/good_v3.gguf
