tshape diff tests/fixtures/model/hf-bin/pytorch_model-00002-of-00002.bin tests/fixtures/model/hf/model-00002-of-00002.safetensors
