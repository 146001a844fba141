# issue 9 defect 3: an abbreviated long option keeps its value, in both forms
tshape info --filt csr tests/fixtures/mxnet/v2_sparse.params | head -2 && tshape info --filt=csr --sum tests/fixtures/mxnet/v2_sparse.params && tshape squeeze --ax -1 '(2,1)' && tshape --js size 4
