tshape rearrange '... -> ... 1' '(2,3)'
