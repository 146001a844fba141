tshape rearrange '... w -> w ...' '(2,3,4,5)'
