#!/bin/sh
# slow: generates about 2 million value pairs and runs 25 diffs against NumPy
# numpy-compare.test.sh - `tshape diff --values` (ts_array_compare) agrees
# with numpy.isclose and NumPy's differences on generated pairs of every
# dtype, byte order and order, mixed dtypes, stored and deflated npz, and
# torch.save views against an npz (tests/crosscheck_compare.py).
cd "$(dirname "$0")/../.." || exit 2
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "numpy-compare: /usr/bin/python3 has no NumPy (apt-get install python3-numpy): skipped"
    exit 77
fi
bin=${TSHAPE:-$(command -v tshape)}
[ -x "$bin" ] || { echo "numpy-compare: no tshape: skipped"; exit 77; }
exec /usr/bin/python3 tests/crosscheck_compare.py "$bin"
