tshape show tests/fixtures/keras/nested.keras layers/dense/vars/0; tshape show tests/fixtures/keras/deflated.keras optimizer/vars/0
