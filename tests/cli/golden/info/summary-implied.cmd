# issue 20 item 9: --top, --group and --tensors on a single file, with or
# without --summary, give the model summary they belong to (they were
# silently ignored); --top out of range is a usage error.
tshape info --top 1 examples/checkpoint.npz
tshape info --group tests/fixtures/model/diff/model.params | head -4
tshape --json info --tensors examples/checkpoint.npz | cut -c1-80
tshape info --top -1 examples/checkpoint.npz; echo "exit $?"
tshape info --top 1048577 examples/checkpoint.npz; echo "exit $?"
tshape info --group - < examples/checkpoint.npz; echo "exit $?"
