tshape info tests/fixtures/npy/f_order_3d.npy
