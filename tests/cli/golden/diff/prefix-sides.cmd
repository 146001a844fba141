# issue 20 item 6: --strip-prefix is one literal prefix for both sides
# (':' included: 'module.:' is no longer read as "module. from A"),
# --strip-prefix-a/-b one side each, and a prefix that matches no name of
# its sides is a warning (the comparison still runs).
tshape diff --strip-prefix-a arg: --strip-prefix-a aux: tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz; echo "exit $?"
tshape diff -p arg: -p aux: --strip-prefix-b arg: -p 'module.:' tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz; echo "exit $?"
tshape diff --strip-prefix-b model. tests/fixtures/model/diff/model.npz tests/fixtures/model/diff/model.npz; echo "exit $?"
