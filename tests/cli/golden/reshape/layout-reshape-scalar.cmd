tshape reshape -1 '()'
