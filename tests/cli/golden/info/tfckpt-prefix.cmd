tshape info --summary --metadata tests/fixtures/tfckpt/sharded/model.ckpt; tshape info --filter b tests/fixtures/tfckpt/sharded/model.ckpt
