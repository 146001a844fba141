tshape view '(6,2)' --strides '(12,4,2)' '(2,3,2)'
tshape view '(2,6)' --strides '(12,4,2)' '(2,3,2)'
tshape view --strides '(12,4,1)' -1 '(2,3,4)'
