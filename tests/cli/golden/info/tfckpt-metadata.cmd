tshape info --metadata tests/fixtures/tfckpt/bigendian/model.ckpt.index
