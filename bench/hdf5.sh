#!/bin/sh
# hdf5.sh - the cost of running libhdf5 in a child process (tshape(1),
# ISOLATION): `tshape info` and `tshape stats` on 1,000 small .h5 files
# (each a contiguous float32 (16,16) dataset and a chunked, deflated int16
# (64,) one, so stats reads values through libhdf5 too), against h5py
# doing the same in one Python process. With TSHAPE_BEFORE set to a
# tshape built without isolation (e.g. from the commit before it), its
# times and the ratio after/before are printed too. Best of 5.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
d=bench/data/h5many
if [ ! -f $d/f0999.h5 ]; then
    mkdir -p $d
    $py - "$d" <<'PY'
import sys, numpy as np, h5py
d = sys.argv[1]
for i in range(1000):
    with h5py.File(f"{d}/f{i:04d}.h5", "w") as f:
        f["dense/kernel"] = np.full((16, 16), i, dtype="<f4")
        f.create_dataset("bias", data=np.arange(64, dtype="<i2"), chunks=(16,), compression="gzip")
PY
fi
info_py='import sys, h5py
for p in sys.argv[1:]:
    with h5py.File(p, "r") as f:
        f.visititems(lambda n, o: print(p, n, o.dtype, o.shape) if isinstance(o, h5py.Dataset) else None)'
stats_py='import sys, h5py, numpy as np
for p in sys.argv[1:]:
    with h5py.File(p, "r") as f:
        f.visititems(lambda n, o: print(p, n, o[()].min(), o[()].max(), o[()].mean()) if isinstance(o, h5py.Dataset) else None)'
set -- $d/f*.h5
for cmd in info stats; do
    after=$(best_of 5 "$tshape" $cmd "$@")
    if [ $cmd = info ]; then ref=$(best_of 5 $py -c "$info_py" "$@"); else ref=$(best_of 5 $py -c "$stats_py" "$@"); fi
    line="tshape $cmd, 1000 .h5 files: ${after} s (libhdf5 isolated); h5py ${ref} s ($(ratio "$ref" "$after")x tshape)"
    if [ -n "${TSHAPE_BEFORE:-}" ]; then
        before=$(best_of 5 "$TSHAPE_BEFORE" $cmd "$@")
        line="$line; in-process ${before} s: isolation costs $(ratio "$after" "$before")x"
    fi
    echo "$line"
done
