#!/bin/sh
# slow: 12,000 cases through Python and NumPy
# numpy-layout.test.sh - cross-checks reshape, broadcast, transpose, squeeze,
# expand, moveaxis, strides, contiguous, ravel and unravel against NumPy on
# thousands of seeded random cases (tests/crosscheck_layout.py). Run by
# tests/cli/run.sh with `tshape` on PATH; exit 0 pass, 77 skip, else fail.
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "numpy-layout: $py with numpy is not available, skipped"
    exit 77
fi
bin=$(command -v tshape) || { echo "numpy-layout: tshape is not on PATH"; exit 2; }
exec "$py" "$here/../crosscheck_layout.py" --tshape "$bin"
