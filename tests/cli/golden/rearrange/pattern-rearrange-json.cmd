tshape --json rearrange 'b h w c -> b c h w' '(32,30,40,3)' '(1,2,3,4)'
