tshape diff tests/fixtures/model/diff/model.npz tests/fixtures/model/nonexistent
