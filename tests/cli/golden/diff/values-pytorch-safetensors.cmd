tshape diff --values tests/fixtures/model/hf tests/fixtures/model/hf-bin
