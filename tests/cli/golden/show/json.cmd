tshape --json show tests/fixtures/values/c8.npy; tshape --json show tests/fixtures/values/f4.npy; tshape --json show tests/fixtures/values/b1.npy; tshape --json show tests/fixtures/values/scalar.npy
