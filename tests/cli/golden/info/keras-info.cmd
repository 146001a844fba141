tshape info --filter 'layers/dense_1/vars/0' tests/fixtures/keras/sequential.keras; tshape info --filter 'layers/dense/vars/0' tests/fixtures/keras/deflated.keras
