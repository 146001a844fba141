# issue 20 item 4: diff --filter/--exclude as info, stats and convert have,
# matched against the names after mapping (the names diff prints), so one
# glob selects the same tensors on both sides.
tshape diff -p arg: -p aux: --exclude 'fc*' tests/fixtures/model/diff/model.params tests/fixtures/model/diff/changed.npz; echo "exit $?"
tshape diff -p arg: -p aux: --filter 'conv*' --filter 'bn*' --exclude '*_bias' tests/fixtures/model/diff/model.params tests/fixtures/model/diff/changed.npz; echo "exit $?"
tshape diff -p arg: -p aux: --filter 'conv0_weight' tests/fixtures/model/diff/model.params tests/fixtures/model/diff/changed.npz; echo "exit $?"
