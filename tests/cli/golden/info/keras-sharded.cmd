tshape info --summary tests/fixtures/keras/sharded/model.weights.json 2>&1; tshape diff --values tests/fixtures/keras/sharded/model.weights.json tests/fixtures/keras/sequential.keras
