tshape rearrange 'b ... -> b (...)' '(2,3,4,5)'
