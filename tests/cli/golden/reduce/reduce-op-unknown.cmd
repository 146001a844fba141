tshape reduce --op foo 'a b -> a' '(2,3)'
