tshape verify --deep tests/fixtures/tfckpt/sharded/model.ckpt.index tests/fixtures/tfckpt/bad_range/model.ckpt.index tests/fixtures/savedmodel/basic/saved_model.pb
