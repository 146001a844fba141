tshape verify tests/fixtures/verify/ok tests/fixtures/model/hf-bin
