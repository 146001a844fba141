tshape show tests/fixtures/tfjs/graph/model.json half
