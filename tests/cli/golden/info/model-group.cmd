tshape info --summary --group --top 3 tests/fixtures/model/hf
