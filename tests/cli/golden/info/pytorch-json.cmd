tshape info --json tests/fixtures/pytorch/per_channel.pt tests/fixtures/pytorch/v3_float8.pt tests/fixtures/pytorch/channels_last.pt tests/fixtures/pytorch/deflated.pt
