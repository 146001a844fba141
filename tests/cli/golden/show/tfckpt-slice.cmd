tshape show tests/fixtures/tfckpt/sharded/model.ckpt.index 'part/w[4:6,:]'
