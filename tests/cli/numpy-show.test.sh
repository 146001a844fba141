#!/bin/sh
# slow: starts tshape show about 500 times and NumPy once
# numpy-show.test.sh - tshape show prints what NumPy's print(a) prints, and
# show --json what a.tolist() holds, on generated arrays of every dtype,
# byte order, order and summarisation (tests/crosscheck_show.py).
cd "$(dirname "$0")/../.." || exit 2
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "numpy-show: /usr/bin/python3 has no NumPy (apt-get install python3-numpy): skipped"
    exit 77
fi
exec /usr/bin/python3 tests/crosscheck_show.py "${TSHAPE:-$(command -v tshape)}"
