tshape diff tests/fixtures/model/hf
