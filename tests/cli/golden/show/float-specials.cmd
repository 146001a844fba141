tshape show tests/fixtures/values/f4_be.npy
