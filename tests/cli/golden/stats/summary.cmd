tshape stats --summary tests/fixtures/values/f2.npy tests/fixtures/values/sparse.params tests/fixtures/values/low.safetensors
