#!/bin/sh
# slow: writes about 30 chunked, compressed HDF5 datasets with h5py and reads them back
# hdf5-values.test.sh - values of chunked and gzip/shuffle-compressed HDF5
# datasets, read through libhdf5 by hyperslab, agree with h5py
# (tests/crosscheck_hdf5_values.py, through build/tsvalues).
cd "$(dirname "$0")/../.." || exit 2
if ! /usr/bin/python3 -c 'import numpy, h5py' 2>/dev/null; then
    echo "hdf5-values: /usr/bin/python3 has no h5py (apt-get install python3-h5py): skipped"
    exit 77
fi
bin=${TSHAPE:-$(command -v tshape)}
tool=$(dirname "$(readlink -f "$bin")")/tsvalues
if [ ! -x "$tool" ]; then
    echo "hdf5-values: no $tool (make builds it with check): skipped"
    exit 77
fi
if ! "$bin" info tests/fixtures/hdf5/mixed.h5 >/dev/null 2>&1; then
    echo "hdf5-values: tshape cannot load libhdf5 here: skipped"
    exit 77
fi
exec /usr/bin/python3 tests/crosscheck_hdf5_values.py "$tool"
