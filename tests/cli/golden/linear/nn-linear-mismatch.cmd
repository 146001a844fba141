tshape linear --out-features 10 --in-features 768 '(32,512)'
