tshape show tests/fixtures/values/sparse.params rsp
