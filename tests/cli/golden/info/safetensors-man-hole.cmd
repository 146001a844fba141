tshape info tests/fixtures/safetensors/bad_hole.safetensors 2>&1
