tshape info --summary --top 0 tests/fixtures/model/missing
