tshape show tests/fixtures/values/c8.npy; tshape show tests/fixtures/values/b1.npy; tshape show tests/fixtures/values/u8_be.npy
