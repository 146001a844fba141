tshape ravel '(3,4)' '(3,1)'
