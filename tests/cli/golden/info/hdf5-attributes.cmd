tshape info --metadata --filter nothing tests/fixtures/hdf5/keras_attrs.h5
