tshape --json info --summary --metadata tests/fixtures/keras/nested.keras
