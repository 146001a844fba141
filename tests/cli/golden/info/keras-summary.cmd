tshape info --summary --metadata tests/fixtures/keras/sequential.keras
