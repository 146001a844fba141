tshape info --summary --filter 'conv1.*' --filter step --exclude '*.bias' examples/checkpoint.npz
