tshape info --filter blk.0.attn_q.weight tests/fixtures/gguf/good_v3.gguf
