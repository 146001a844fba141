tshape info --summary tests/fixtures/pt2/legacy.pt2 tests/fixtures/pt2/bad_short.pt2
