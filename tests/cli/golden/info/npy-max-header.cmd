tshape info -s tests/fixtures/npy/big_header.npy; tshape info -s --max-header 10102 tests/fixtures/npy/big_header.npy
