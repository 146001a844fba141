# issue 9 defect 7: every error line is "tshape: [COMMAND: ][WHERE: ]MESSAGE"
tshape size '(2,x)'; printf '(2,3)\n(1,\n' | tshape ndim; tshape size -Q 5; tshape info --format bogus x; tshape info /nonexistent/a.npy; tshape frobnicate; tshape --bogus; tshape; tshape reshape --reverse -1 '(2,)'; tshape get 99 '(1,)'; exit 0
