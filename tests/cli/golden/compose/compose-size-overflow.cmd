tshape compose 'a,b' a '(4294967296,)' b '(4294967296,)'
