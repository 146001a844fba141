tshape reduce 'b c (h1 2) (w1 2) -> b c h1 w1' '(10,20,30,40)'
