#!/bin/sh
# slow: 4000 cases through Python and NumPy
# numpy-einsum.test.sh - cross-checks `tshape einsum` against numpy.einsum on
# 4000 seeded random cases (tests/crosscheck_einsum.py). Run by run.sh from
# the repository root with tshape on PATH. Exit 77 (skip) without NumPy.
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "numpy-einsum: skipped: $PY with numpy is not available"
    exit 77
fi
exec "$PY" tests/crosscheck_einsum.py --tshape "$(command -v tshape)" --cases 4000
