#!/bin/sh
# tflite.sh - tshape info on TFLite reads the FlatBuffer's tables only: the
# same model (64 float32 tensors in one subgraph, each with its buffer, data
# inside the FlatBuffer as TensorFlow's converter lays it out: tables first,
# buffer data last) with 4 MB and with 400 MB of weights, written sparse in a
# temporary directory by a small forward FlatBuffers writer below. For each:
# best-of-5 wall time, the largest maximum resident set and minor page
# faults (/usr/bin/time -v), and the ratios 400 MB / 4 MB (the issue asks for
# the same time and the same page faults). Then the same with TSHAPE_IO=map
# (the file mapped, pages touched count), and, when flatc and
# python3-flatbuffers are installed, the reader a user would write with
# `flatc --python` from tests/tflite/reference.fbs, which reads the whole
# file into memory first (flatbuffers' Python GetRootAs takes a buffer).
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
[ -x "$tshape" ] || { echo "tflite.sh: build $tshape first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$py - "$tmp" <<'PY'
import os, struct, sys
d = sys.argv[1]

def write(path, total, n=64):
    per = total // n // 4 * 4
    out = bytearray()
    def at():
        return len(out)
    def align(k):
        out.extend(b"\0" * (-len(out) % k))
    def u32(v):
        out.extend(struct.pack("<I", v))
    def patch(pos, target):          # a uoffset at pos pointing to target
        struct.pack_into("<I", out, pos, target - pos)
    def table(fields):               # fields: list of (id, kind); returns table pos, slot positions
        nslots = max([i for i, _ in fields], default=-1) + 1
        align(4)
        vt = at()
        size = {"u32": 4, "off": 4, "i8": 1}
        voffs, pos = {}, 4
        for i, k in fields:
            voffs[i] = pos
            pos += 4
        out.extend(struct.pack("<HH", 4 + 2 * nslots, pos))
        for i in range(nslots):
            out.extend(struct.pack("<H", voffs.get(i, 0)))
        align(4)
        t = at()
        u32(t - vt)                   # soffset: vtable = table - soffset
        out.extend(b"\0" * (pos - 4))
        return t, {i: t + o for i, o in voffs.items()}
    u32(0); out.extend(b"TFL3")
    model, ms = table([(0, "u32"), (2, "off"), (4, "off")])
    patch(0, model)
    struct.pack_into("<I", out, ms[0], 3)
    align(4); subs = at(); u32(1); sub_slot = at(); u32(0)
    patch(ms[2], subs)
    sg, ss = table([(0, "off")])
    patch(sub_slot, sg)
    align(4); tv = at(); u32(n); tslots = [at() + 4 * i for i in range(n)]; out.extend(b"\0" * 4 * n)
    patch(ss[0], tv)
    for i in range(n):
        t, ts = table([(0, "off"), (2, "u32"), (3, "off")])
        patch(tslots[i], t)
        struct.pack_into("<I", out, ts[2], i + 1)
        align(4); shp = at(); u32(1); u32(per // 4); patch(ts[0], shp)
        name = b"layer.%d.weight" % i
        nm = at(); u32(len(name)); out.extend(name + b"\0"); patch(ts[3], nm)
    align(4); bv = at(); u32(n + 1); bslots = [at() + 4 * i for i in range(n + 1)]
    out.extend(b"\0" * 4 * (n + 1))
    patch(ms[4], bv)
    data_slots = []
    for i in range(n + 1):
        b, bs = table([(0, "off")] if i else [])   # buffer 0: empty
        patch(bslots[i], b)
        if i:
            data_slots.append(bs[0])
    with open(path, "wb") as f:
        # buffer data last: u32 length, 16-byte aligned elements, zeros (sparse)
        pos = len(out)
        layout = []
        for s in data_slots:
            pos += -(pos + 4) % 16
            layout.append(pos)
            pos += 4 + per
        for s, p in zip(data_slots, layout):
            patch(s, p)
        f.write(out)
        for p in layout:
            f.seek(p)
            f.write(struct.pack("<I", per))
            f.seek(per, 1)
        f.truncate(pos)
    return per

write(os.path.join(d, "small.tflite"), 4 * 1000 * 1000)
write(os.path.join(d, "big.tflite"), 400 * 1000 * 1000)
PY

stat_of() { # KEY CMD...: the largest "KEY" of /usr/bin/time -v over 3 runs
    key=$1; shift
    m=0
    for _ in 1 2 3; do
        r=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n "s/.*$key: //p")
        [ "${r:-0}" -gt "$m" ] && m=$r
    done
    echo "$m"
}

ls -l "$tmp"/small.tflite "$tmp"/big.tflite | awk '{printf "%-14s %12s bytes\n", $NF, $5}' | sed "s|$tmp/||"
"$tshape" info --summary "$tmp/big.tflite" | tail -1
row() { # LABEL CMD... (the file name last, replaced by small and big)
    label=$1; shift
    ts=$(best_of 5 "$@" "$tmp/small.tflite")
    tb=$(best_of 5 "$@" "$tmp/big.tflite")
    rs=$(stat_of "Maximum resident set size (kbytes)" "$@" "$tmp/small.tflite")
    rb=$(stat_of "Maximum resident set size (kbytes)" "$@" "$tmp/big.tflite")
    fs=$(stat_of "Minor (reclaiming a frame) page faults" "$@" "$tmp/small.tflite")
    fb=$(stat_of "Minor (reclaiming a frame) page faults" "$@" "$tmp/big.tflite")
    printf '%-30s %8ss %8ss %6sx | %7s %7s KiB %5sx | %6s %7s faults %5sx\n' "$label" "$ts" "$tb" \
        "$(ratio "$tb" "$ts")" "$rs" "$rb" "$(ratio "$rb" "$rs")" "$fs" "$fb" "$(ratio "$fb" "$fs")"
}
printf '%-30s %9s %9s %7s | %15s RSS %6s | %21s\n' "" "4 MB" "400 MB" "ratio" "4 MB / 400 MB" "ratio" "minor page faults"
row "tshape info --summary" "$tshape" info --summary
row "  TSHAPE_IO=map" env TSHAPE_IO=map "$tshape" info --summary
if command -v flatc >/dev/null 2>&1 && $py -c 'import flatbuffers' 2>/dev/null; then
    flatc --python -o "$tmp/gen" tests/tflite/reference.fbs
    cat > "$tmp/ref.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tflite_ref.Model import Model
m = Model.GetRootAs(open(sys.argv[2], "rb").read(), 0)
g = m.Subgraphs(0)
for i in range(g.TensorsLength()):
    t = g.Tensors(i)
    print(t.Name().decode(), t.Type(), t.ShapeAsNumpy() if t.ShapeLength() else ())
PY
    row "flatc --python reader" $py "$tmp/ref.py" "$tmp/gen"
fi
