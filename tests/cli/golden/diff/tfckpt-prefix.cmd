tshape diff --values tests/fixtures/tfckpt/sharded/model.ckpt tests/fixtures/tfckpt/sharded/model.ckpt.index
