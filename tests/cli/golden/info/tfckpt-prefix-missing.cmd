tshape info tests/fixtures/tfckpt/sharded/model; tshape info tests/fixtures/tfckpt/sharded/model.ckpt.data-00000-of-00002.nothere
