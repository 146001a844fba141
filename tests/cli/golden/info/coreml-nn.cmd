tshape info --metadata --json tests/fixtures/coreml/nn.mlmodel
