tshape verify --deep tests/fixtures/tfckpt/bad_data/model.ckpt tests/fixtures/tfckpt/basic/model.ckpt.index; tshape --json verify --deep tests/fixtures/tfckpt/bad_data/model.ckpt
