printf '{(1,2),(3,4)}\n{(1,),(1,2)}\ntile (2,2)\n' | tshape jagged
