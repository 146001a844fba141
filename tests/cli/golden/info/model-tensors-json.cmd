tshape --json info -s --tensors --top 0 tests/fixtures/model/hf
