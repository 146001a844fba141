tshape verify --deep tests/fixtures/keras/sequential.keras tests/fixtures/keras/deflated.keras tests/fixtures/keras/nested.keras
