tshape info tests/fixtures/gguf/bad_nul_key.gguf tests/fixtures/mxnet/bad_nul_name.params tests/fixtures/npy/bad_stored_size_lie.npz
