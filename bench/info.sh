#!/bin/sh
# info.sh - tshape info reads headers only. Measures:
#   1. a sparse 8 GiB .npy against a 1 KiB one (the times must match);
#   2. a sparse 1 GiB safetensors file against the Python a user would write
#      (json + struct on the header);
#   3. the real 107-array cifar_resnet20_v1-0000.params (../shared/corpus)
#      against a Python struct walker of the MXNet layout;
#   4. .npy/.npz against NumPy (np.load with mmap_mode / NpzFile headers).
# Prints median-of-5 wall times and ratios; goal: the 8 GiB file's time at
# most 2x the 1 KiB one's (exits 1 when missed).
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
d=bench/data
mkdir -p $d
$py - <<'PY'
import json, os, struct
import numpy as np
d = "bench/data"
if not os.path.exists(f"{d}/big.npy"):
    # open_memmap seeks to the end and writes one byte: a sparse file.
    m = np.lib.format.open_memmap(f"{d}/big.npy", mode="w+", dtype="<f4", shape=(2**31,))
    del m
np.save(f"{d}/small.npy", np.zeros(64, dtype="<f4"))
np.savez(f"{d}/small.npz", a=np.zeros(64, "<f4"), b=np.zeros((4, 4), "<i8"))
if not os.path.exists(f"{d}/big.safetensors"):
    n = 256
    hdr, off = {}, 0
    for i in range(n):
        nb = (1 << 30) // n
        hdr[f"layer.{i}.weight"] = {"dtype": "F32", "shape": [nb // 4], "data_offsets": [off, off + nb]}
        off += nb
    text = json.dumps(hdr).encode()
    text += b" " * (-len(text) % 8)
    with open(f"{d}/big.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + off)
PY
ls -ls $d/big.npy $d/small.npy $d/big.safetensors | awk '{printf "%-28s %14s bytes, %8s KiB on disk\n", $10, $6, $1}'

st_py='import json, struct, sys
with open(sys.argv[1], "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n))
for k, v in h.items():
    if k != "__metadata__": print(k, v["dtype"], v["shape"])'
npy_py='import sys, numpy as np
a = np.load(sys.argv[1], mmap_mode="r"); print(a.shape, a.dtype)'
npz_py='import sys, numpy as np
z = np.load(sys.argv[1])
for k in z.files: print(k, z[k].shape, z[k].dtype)'
mx_py='import struct, sys
b = open(sys.argv[1], "rb").read()
sz = {0: 4, 1: 8, 2: 2, 3: 1, 4: 4, 5: 1, 6: 8, 7: 1, 8: 2, 9: 2, 10: 4, 11: 8, 12: 2}
p = 24; n = struct.unpack_from("<Q", b, 16)[0]; shapes = []
for i in range(n):
    m, = struct.unpack_from("<I", b, p); p += 4
    st, = struct.unpack_from("<i", b, p); p += 4
    nd, = struct.unpack_from("<I", b, p); p += 4
    sh = struct.unpack_from("<%dq" % nd, b, p); p += 8 * nd
    dev, did, tf = struct.unpack_from("<iii", b, p); p += 12
    cnt = 1
    for x in sh: cnt *= x
    p += cnt * sz[tf]; shapes.append(sh)
k, = struct.unpack_from("<Q", b, p); p += 8
for i in range(k):
    l, = struct.unpack_from("<Q", b, p); p += 8
    print(b[p:p + l].decode(), shapes[i]); p += l'

row() { printf '%-44s %9s s  %s\n' "$1" "$2" "$3"; }
t_small=$(median_of 5 "$tshape" info $d/small.npy)
t_big=$(median_of 5 "$tshape" info $d/big.npy)
row "tshape info small.npy (1 KiB)" "$t_small"
row "tshape info big.npy (8 GiB, sparse)" "$t_big" "ratio to 1 KiB: $(ratio "$t_big" "$t_small")"
goal "info: 8 GiB .npy time / 1 KiB .npy time" "$(ratio2 "$t_big" "$t_small")" "<=" 2
p_big=$(median_of 5 $py -c "$npy_py" $d/big.npy)
row "python np.load(mmap_mode='r') big.npy" "$p_big" "tshape is $(ratio "$p_big" "$t_big")x faster"
t_npz=$(median_of 5 "$tshape" info $d/small.npz)
p_npz=$(median_of 5 $py -c "$npz_py" $d/small.npz)
row "tshape info small.npz" "$t_npz"
row "python np.load(npz) members" "$p_npz" "tshape is $(ratio "$p_npz" "$t_npz")x faster"
t_st=$(median_of 5 "$tshape" info $d/big.safetensors)
p_st=$(median_of 5 $py -c "$st_py" $d/big.safetensors)
row "tshape info big.safetensors (1 GiB, 256 t.)" "$t_st"
row "python json+struct header" "$p_st" "tshape is $(ratio "$p_st" "$t_st")x faster"
params=../shared/corpus/mxnet/cifar_resnet20_v1-0000.params
if [ -f $params ]; then
    t_mx=$(median_of 5 "$tshape" info $params)
    p_mx=$(median_of 5 $py -c "$mx_py" $params)
    row "tshape info cifar_resnet20 (107 arrays)" "$t_mx"
    row "python struct walker" "$p_mx" "tshape is $(ratio "$p_mx" "$t_mx")x faster"
else
    echo "skipped: $params is absent"
fi
goals_done
