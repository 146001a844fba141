tshape --json info --metadata tests/fixtures/gguf/good_v3.gguf examples/model.safetensors | grep metadata
