tshape verify -q tests/fixtures/verify/ok; echo $?; tshape verify -q tests/fixtures/verify/short; echo $?; tshape verify; tshape verify -
