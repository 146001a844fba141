tshape convtranspose --kernel 3 --stride 2 --padding 1 --output-padding 1 --out-channels 16 --weight '(1,32,14,14)'
