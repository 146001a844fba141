tshape info -s --top 0 tests/fixtures/model/broken
