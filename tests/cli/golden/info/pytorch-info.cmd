tshape info tests/fixtures/pytorch/hf_tied.bin
