tshape linear '(32,512)'
