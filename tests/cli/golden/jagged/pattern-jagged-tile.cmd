tshape jagged --print 'tile (5,10,15) (5,10,15)'
