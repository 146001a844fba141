tshape diff --rename /nonexistent/map tests/fixtures/model/diff/model.npz tests/fixtures/model/diff/model.npz
