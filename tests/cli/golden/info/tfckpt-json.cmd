tshape info --json tests/fixtures/tfckpt/basic/model.ckpt.index
