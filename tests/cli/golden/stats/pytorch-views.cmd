tshape stats tests/fixtures/pytorch/channels_last.pt tests/fixtures/pytorch/deflated.pt
