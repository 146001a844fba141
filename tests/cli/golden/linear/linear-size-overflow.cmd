tshape linear --out-features 4294967296 '(4294967296,3)'
