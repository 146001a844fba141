tshape diff tests/fixtures/coreml/model.mlpackage tests/fixtures/coreml/program.mlmodel
