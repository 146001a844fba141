tshape --json info -s -l --top 1 tests/fixtures/model/hf/model.safetensors.index.json
