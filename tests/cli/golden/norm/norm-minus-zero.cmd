tshape norm '(-0,+0,2)' -- -0
