tshape diff --values --rtol 0.05 --atol 0 --equal-nan tests/fixtures/values/diff/a.npz tests/fixtures/values/diff/b.npz
