tshape --json info --metadata tests/fixtures/gguf/good_nonfinite.gguf
