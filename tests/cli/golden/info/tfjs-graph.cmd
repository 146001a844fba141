tshape info --metadata tests/fixtures/tfjs/graph/model.json
