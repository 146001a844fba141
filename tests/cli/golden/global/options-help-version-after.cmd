tshape size --version && tshape info -V examples/image.npy && tshape flat3d -h | head -2 && tshape --help | head -1 && tshape -- size 6
