tshape rearrange ' -> 1' '()'
