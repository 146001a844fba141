tshape flat3d 1:2 '(2,3,4,5)' && tshape flat3d 1 '(2,3,4,5)' && tshape flat3d -1 '(2,3,4,5)' && tshape --json flat3d 0:-1 '(2,3,4,5)'
