# issue 20 item 7: the first pipeline a user writes works: --summary writes
# only the rows to standard output (the total line goes to standard error),
# so cut -f4 gives shapes that tshape size reads, with no grep -v.
tshape info --summary examples/checkpoint.npz 2>/dev/null | cut -f4 | tshape size
tshape info --summary examples/checkpoint.npz examples/model.safetensors 2>/dev/null | cut -f3 | sort | uniq -c
