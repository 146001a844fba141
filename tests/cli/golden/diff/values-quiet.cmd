tshape diff --values -q -p arg: -p aux: tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz
