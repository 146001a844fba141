tshape info -s -l --top 1 tests/fixtures/model/diff/model.params
