tshape --json id --values examples/checkpoint.npz tests/fixtures/model/missing; tshape --json id -l x; tshape id
