tshape diff --values tests/fixtures/keras/sequential.keras tests/fixtures/keras/sequential.weights.h5; tshape diff --values tests/fixtures/keras/sequential.keras tests/fixtures/keras/deflated.keras
