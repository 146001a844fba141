tshape show tests/fixtures/values/deflated.npz big
