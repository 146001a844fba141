tshape stats tests/fixtures/values/nonexistent.npy tests/fixtures/values/scalar.npy
