tshape repeat 'a -> a b' b=4294967296 '(4294967296,)'
