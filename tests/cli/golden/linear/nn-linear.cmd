tshape linear --out-features 10 '(32,5,768)' '(768,)' && tshape linear --out-features 10 --in-features 768 --weight '(32,768)'
