tshape --json diff -p arg: -p aux: tests/fixtures/model/diff/model.params tests/fixtures/model/diff/changed.npz
