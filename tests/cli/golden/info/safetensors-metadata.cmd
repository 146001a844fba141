tshape info --metadata --summary tests/fixtures/safetensors/good_metadata.safetensors
