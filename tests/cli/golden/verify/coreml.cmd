tshape verify tests/fixtures/coreml/model.mlpackage; tshape verify tests/fixtures/coreml/short.mlpackage; tshape verify tests/fixtures/coreml/program.mlmodel
