tshape id --values tests/fixtures/model/hf tests/fixtures/model/hf-bin tests/fixtures/verify/short
