tshape reduce --op max 'b c (h h2) (w w2) -> b c h w' '(2,3,4,6)' h2=2 w2=2
