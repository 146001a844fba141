tshape info --summary tests/fixtures/coreml/program.mlmodel tests/fixtures/coreml/pipeline.mlmodel
