# issue 9 defect 1: -j/--json after the command name, for every core command
tshape size -j '(2,3)' && tshape ndim '(2,3)' -j && tshape norm --json 5 && tshape flat2d '(2,3,4)' -j && tshape flat3d -j 1 '(2,3,4,5)' && tshape prod -j 0 2 '(2,3,4)' && tshape eq -j '(1,)' '[1]' && tshape get 2 '(2,3)' --json
