tshape diff tests/fixtures/model/hf tests/fixtures/model/missing
