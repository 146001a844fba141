tshape id --listing tests/fixtures/model/hf; tshape id -l --values examples/checkpoint.npz
