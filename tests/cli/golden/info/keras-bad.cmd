tshape info tests/fixtures/keras/npzweights.keras; tshape info -f npz tests/fixtures/keras/sequential.keras
