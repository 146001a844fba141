tshape info --summary --all tests/fixtures/tfckpt/sharded/model.ckpt.index
