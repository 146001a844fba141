tshape info --summary tests/fixtures/safetensors/good_unordered.safetensors
