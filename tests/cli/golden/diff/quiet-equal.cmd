tshape diff -q tests/fixtures/model/hf tests/fixtures/model/hf/model.safetensors.index.json
