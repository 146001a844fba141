tshape jagged --slice 0,2 '{{(10,)},{(20,),(30,)}}'
