tshape info --json --metadata tests/fixtures/safetensors/good_metadata.safetensors
