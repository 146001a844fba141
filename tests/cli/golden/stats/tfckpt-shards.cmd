tshape stats tests/fixtures/tfckpt/sharded/model.ckpt.index tests/fixtures/tfckpt/bigendian/model.ckpt.index tests/fixtures/tfckpt/snappy/model.ckpt.index
