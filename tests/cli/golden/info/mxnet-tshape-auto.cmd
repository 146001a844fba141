tshape info tests/fixtures/tshape/one32.tshape
