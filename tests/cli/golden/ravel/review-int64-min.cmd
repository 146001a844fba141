tshape ravel --mode wrap '(3,4)' '(-9223372036854775808,1)' && tshape info --summary /nonexistent/a.npy
