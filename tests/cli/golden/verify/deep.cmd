tshape verify --deep tests/fixtures/verify/ok tests/fixtures/verify/bin tests/fixtures/verify/nonfinite.pt
