#!/bin/sh
# slow: generates and checks 2 million values against NumPy
# numpy-values.test.sh - the values API (statistics and element reads) agrees
# with NumPy on generated files of every dtype, byte order and order, as npy
# and stored/deflated npz (tests/crosscheck_values.py, through the
# build/tsvalues driver next to the tshape under test).
cd "$(dirname "$0")/../.." || exit 2
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "numpy-values: /usr/bin/python3 has no NumPy (apt-get install python3-numpy): skipped"
    exit 77
fi
bin=${TSHAPE:-$(command -v tshape)}
tool=$(dirname "$(readlink -f "$bin")")/tsvalues
if [ ! -x "$tool" ]; then
    echo "numpy-values: no $tool (make builds it with check): skipped"
    exit 77
fi
exec /usr/bin/python3 tests/crosscheck_values.py "$tool"
