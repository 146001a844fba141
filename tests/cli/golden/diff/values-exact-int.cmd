tshape diff --values --rtol 0 tests/fixtures/values/diff/a.npz tests/fixtures/values/diff/b.npz
