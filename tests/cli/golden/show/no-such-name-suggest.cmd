# issue 20 item 12: show FILE NAME with a name the file does not hold
# suggests the closest names: a typo, a prefix left out or one too many.
tshape show examples/checkpoint.npz conv1.weigth
tshape show tests/fixtures/pytorch/adam.pt module.weight
tshape show examples/checkpoint.npz model.conv1.bias
tshape show examples/checkpoint.npz zzz
