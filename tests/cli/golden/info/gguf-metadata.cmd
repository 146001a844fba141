tshape info --metadata --filter token_embd.weight tests/fixtures/gguf/good_v3.gguf
