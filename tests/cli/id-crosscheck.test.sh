#!/bin/sh
# id-crosscheck.test.sh - tshape id and id --listing, with and without
# --values, against the fingerprint computed with NumPy and torch from the
# files themselves (tests/crosscheck_id.py): Fortran-order, big-endian and
# deflated arrays, npz members, torch.save views and channels_last tensors.
cd "$(dirname "$0")/../.." || exit 2
bin=${TSHAPE:-$(command -v tshape)}
exec /usr/bin/python3 tests/crosscheck_id.py "$bin"
