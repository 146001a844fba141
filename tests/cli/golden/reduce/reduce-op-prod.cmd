tshape reduce --op prod 'a b -> a' '(2,3)'
