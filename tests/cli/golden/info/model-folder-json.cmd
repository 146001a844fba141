tshape --json info --filter "*.bias" tests/fixtures/model/mixed
