tshape strides --dtype float4_e2m1fn '(2,3)'
