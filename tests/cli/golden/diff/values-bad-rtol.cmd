tshape diff --values --rtol -1 tests/fixtures/values/diff/a.npz tests/fixtures/values/diff/b.npz
