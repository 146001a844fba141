tshape --json stats tests/fixtures/values/b1.npy tests/fixtures/values/c8.npy tests/fixtures/values/i8.npy tests/fixtures/values/u8_be.npy tests/fixtures/values/empty.npy
