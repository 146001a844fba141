tshape convtranspose --kernel 3 --output-padding 1 --out-channels 16 '(1,32,14,14)'
