tshape info --summary --exclude 'conv*' --exclude step examples/checkpoint.npz
