tshape diff -p arg:: tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz
