tshape diff -p arg: -p aux: --rename tests/fixtures/model/diff/rename.txt tests/fixtures/model/diff/model.params tests/fixtures/model/diff/renamed.npz
