tshape info tests/fixtures/coreml/short.mlpackage
