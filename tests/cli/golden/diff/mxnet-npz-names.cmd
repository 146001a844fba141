tshape diff tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz
