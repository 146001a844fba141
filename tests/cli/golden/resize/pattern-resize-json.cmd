tshape --json resize '(2,6)' '(3,4)' '(3,5)'
