tshape show --edgeitems 1 --threshold 5 tests/fixtures/values/i1_2d.npy
