tshape info --filter 'blk.0.*' tests/fixtures/gguf/good_v3.gguf
