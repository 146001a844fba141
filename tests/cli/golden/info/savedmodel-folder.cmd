tshape info --json tests/fixtures/savedmodel/basic/
