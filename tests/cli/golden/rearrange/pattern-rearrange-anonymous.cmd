tshape rearrange '... -> ... 2' '(2,3)'
