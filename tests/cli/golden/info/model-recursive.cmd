tshape info -s -r tests/fixtures/model/mixed
