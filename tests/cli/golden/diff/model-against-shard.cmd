tshape diff tests/fixtures/model/hf-bin tests/fixtures/model/hf/model-00001-of-00002.safetensors
