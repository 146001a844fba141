tshape conv --kernel '(3,5)' --dilation 2 --groups 2 --out-channels 4 --weight '(2,4,16,16)'
