tshape id tests/fixtures/model/hf tests/fixtures/model/hf-bin tests/fixtures/verify/ok examples/model.safetensors
