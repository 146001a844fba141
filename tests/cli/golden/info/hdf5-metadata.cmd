tshape info --metadata --filter 'dense/*' tests/fixtures/hdf5/keras2.h5
