tshape stats tests/fixtures/values/f4.npy tests/fixtures/values/f4_be.npy tests/fixtures/values/deflated.npz
