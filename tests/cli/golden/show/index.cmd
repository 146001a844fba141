tshape show -i -1 tests/fixtures/values/i1_2d.npy
