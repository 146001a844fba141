tshape resize '(2,-6)' '(3,4)'
