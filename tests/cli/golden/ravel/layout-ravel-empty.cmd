tshape ravel --mode clip '(3,0)' '(1,0)'
