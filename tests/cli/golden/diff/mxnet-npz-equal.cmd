tshape diff --strip-prefix arg: --strip-prefix aux: tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz
