tshape info --summary --filter 'optimizer.state.*' tests/fixtures/pytorch/adam.pt tests/fixtures/pytorch/legacy_p4.pt
