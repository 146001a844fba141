tshape convtranspose --kernel 3 --padding same --out-channels 16 '(1,32,14,14)'
