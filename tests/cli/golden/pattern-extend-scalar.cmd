tshape extend 2 '()'
