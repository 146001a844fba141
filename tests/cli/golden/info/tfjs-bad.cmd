tshape info --summary tests/fixtures/tfjs/strings/model.json tests/fixtures/tfjs/bad_short/model.json tests/fixtures/tfjs/bad_path/model.json
