#!/bin/sh
# slow: starts Python and NumPy on every npy/npz file
# numpy-npy.test.sh - tshape info agrees with NumPy on every .npy/.npz file
# of the fixtures, the examples and the shared corpus (tests/crosscheck_npy.py).
cd "$(dirname "$0")/../.." || exit 2
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "numpy-npy: /usr/bin/python3 has no NumPy (apt-get install python3-numpy): skipped"
    exit 77
fi
exec /usr/bin/python3 tests/crosscheck_npy.py "${TSHAPE:-$(command -v tshape)}"
