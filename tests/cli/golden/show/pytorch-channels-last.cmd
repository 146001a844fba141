tshape show tests/fixtures/pytorch/channels_last.pt cl
