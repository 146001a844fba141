tshape info --format safetensors tests/fixtures/safetensors/bad_header_too_large.safetensors tests/fixtures/safetensors/bad_not_object.safetensors
