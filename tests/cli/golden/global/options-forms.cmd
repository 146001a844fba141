# --opt=value, --opt value, -xVALUE, -x VALUE, clusters, -- ending options,
# negative numbers and '->' specs as operands, global options anywhere
tshape info -sfnpy examples/image.npy && tshape info -s --format=npy examples/image.npy && tshape info -smf npy examples/image.npy && tshape -j info -sj examples/image.npy && tshape squeeze --axis=-1 '(1,3,1)' && tshape reshape -- -1 '(2,3)' && tshape einsum '->' '()' && tshape flatten -2 -1 '(2,3,4)' -j && tshape size -- -j 2>&1; echo "exit $?"
