tshape --json diff --values tests/fixtures/values/diff/a.npz tests/fixtures/values/diff/b.npz
