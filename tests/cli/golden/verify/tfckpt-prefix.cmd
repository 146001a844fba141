tshape verify --deep tests/fixtures/tfckpt/sharded/model.ckpt; tshape scan tests/fixtures/tfckpt/sharded/model.ckpt; tshape id tests/fixtures/tfckpt/sharded/model.ckpt | cut -f1 -d' '
