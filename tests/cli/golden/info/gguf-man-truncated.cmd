tshape info tests/fixtures/gguf/bad_truncated_data.gguf 2>&1
