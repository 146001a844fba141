tshape info --summary --stored-order tests/fixtures/gguf/good_v3.gguf
