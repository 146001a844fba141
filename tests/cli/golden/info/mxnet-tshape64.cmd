tshape info -s -f tshape64 tests/fixtures/tshape/three64.tshape
