tshape ravel '(3,4)' '(1,2)'
tshape ravel --order F '(3,4)' 1,2
tshape ravel --mode wrap '(3,4)' '(3,-1)'
tshape ravel --mode clip '(3,4)' '(3,-1)'
tshape ravel --mode clip,wrap '(3,4)' '(3,-1)'
