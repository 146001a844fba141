tshape stats tests/fixtures/tfjs/graph/model.json
