tshape flat3d 2:4 '(2,3,4,5)'; tshape flat3d 3:1 '(2,3,4,5)'; tshape flat3d 0 '()'
