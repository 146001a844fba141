tshape info --summary tests/fixtures/model/hf
