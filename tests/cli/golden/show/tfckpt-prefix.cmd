tshape show tests/fixtures/tfckpt/sharded/model.ckpt 'part/w[4:6,:]'
