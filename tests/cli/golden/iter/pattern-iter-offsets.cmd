tshape iter --origin '(10,10)' --offsets '(2,2)'
