tshape info --summary --metadata tests/fixtures/pytorch/adam.pt
