tshape stats tests/fixtures/tfckpt/sharded/model.ckpt
