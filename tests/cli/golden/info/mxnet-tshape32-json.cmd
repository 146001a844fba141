tshape info --json -f tshape32 tests/fixtures/tshape/three32.tshape
