# issue 20 item 6: a prefix for one side only is its own option; 'arg:'
# from A's names and none from B's leaves aux:bn0_moving_mean unmatched.
tshape diff --strip-prefix-a arg: tests/fixtures/model/diff/model.params tests/fixtures/model/diff/model.npz
