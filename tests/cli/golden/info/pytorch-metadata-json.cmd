tshape info --metadata --json tests/fixtures/pytorch/adam.pt tests/fixtures/pytorch/csr.pt
