tshape show --index 1,2,3 tests/fixtures/values/i1_2d.npy
