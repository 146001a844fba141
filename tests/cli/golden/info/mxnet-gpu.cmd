tshape info tests/fixtures/mxnet/gpu_ctx.params
