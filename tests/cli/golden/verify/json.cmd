tshape --json verify --deep tests/fixtures/verify/short tests/fixtures/verify/nonfinite.pt
