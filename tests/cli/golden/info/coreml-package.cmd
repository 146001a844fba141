tshape info --metadata tests/fixtures/coreml/model.mlpackage
