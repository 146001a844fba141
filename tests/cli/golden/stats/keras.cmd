tshape stats tests/fixtures/keras/nested.keras; tshape stats tests/fixtures/keras/deflated.keras
