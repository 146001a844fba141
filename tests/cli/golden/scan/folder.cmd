tshape scan tests/fixtures/scan/routine
