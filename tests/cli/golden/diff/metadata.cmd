# issue 20 item 5: two checkpoints with the same tensors but another epoch,
# loss and args (tests/fixtures/gen_diff_metadata.py) compared as equal.
# Plain diff says in its last line that the metadata differs (exit status
# by the tensors: 0); --metadata lists the entries and exits 1; shards'
# metadata is one list, a key with one value in every shard one entry.
D=tests/fixtures/model/diffmeta
tshape diff $D/epoch2.pt $D/epoch3.pt; echo "exit $?"
tshape diff --metadata $D/epoch2.pt $D/epoch3.pt; echo "exit $?"
tshape --json diff -m $D/epoch2.pt $D/epoch3.pt; echo "exit $?"
tshape diff -m $D/epoch2.pt $D/epoch2.pt; echo "exit $?"
tshape diff -m $D/shards $D/shards2; echo "exit $?"
tshape diff -q -m $D/epoch2.pt $D/epoch3.pt; echo "exit $?"
