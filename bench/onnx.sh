#!/bin/sh
# onnx.sh - tshape info on ONNX reads headers only: the same model (64
# initializers, raw_data) with 4 MB and with 400 MB of weights, written in a
# temporary directory. For each: median-of-5 wall time and the largest maximum
# resident set size (/usr/bin/time -v) of `tshape info --summary`, and the
# ratio 400 MB / 4 MB (the issue asks for at most 2x). When python3-onnx is
# installed, the same for `onnx.load(f, load_external_data=False)`, which
# parses every byte. The models are written by a tiny protobuf encoder below
# (no onnx package needed); the weights are zeros, written sparse.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
[ -x "$tshape" ] || { echo "onnx.sh: build $tshape first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$py - "$tmp" <<'PY'
import os, sys
d = sys.argv[1]

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)

def ld_head(field, n):
    return varint(field << 3 | 2) + varint(n)

def write(path, total):
    n = 64
    per = total // n // 4 * 4
    tensors = []
    for i in range(n):
        head = varint(1 << 3) + varint(per // 4) + varint(2 << 3) + varint(1)
        name = f"layer.{i}.weight".encode()
        head += ld_head(8, len(name)) + name + ld_head(9, per)
        tensors.append(head)
    graph_len = sum(len(ld_head(5, len(h) + per)) + len(h) + per for h in tensors)
    with open(path, "wb") as f:
        f.write(varint(1 << 3) + varint(8))            # ir_version 8
        f.write(ld_head(7, graph_len))                    # graph
        for h in tensors:
            f.write(ld_head(5, len(h) + per) + h)         # initializer
            f.seek(per, 1)                                # raw_data: zeros, sparse
        f.truncate()                                      # extends the last hole
    # a trailing opset_import so the file ends with real bytes
    with open(path, "ab") as f:
        body = ld_head(1, 0) + varint(2 << 3) + varint(13)
        f.write(ld_head(8, len(body)) + body)

write(os.path.join(d, "small.onnx"), 4 * 1000 * 1000)
write(os.path.join(d, "big.onnx"), 400 * 1000 * 1000)
PY

rss() { # max RSS in KiB of CMD over 3 runs
    m=0
    for _ in 1 2 3; do
        r=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p')
        [ "${r:-0}" -gt "$m" ] && m=$r
    done
    echo "$m"
}

ls -l "$tmp"/small.onnx "$tmp"/big.onnx | awk '{printf "%-12s %12s bytes\n", $NF, $5}' | sed "s|$tmp/||"
"$tshape" info --summary "$tmp/big.onnx" | tail -1
ts=$(median_of 5 "$tshape" info --summary "$tmp/small.onnx")
tb=$(median_of 5 "$tshape" info --summary "$tmp/big.onnx")
rs=$(rss "$tshape" info --summary "$tmp/small.onnx")
rb=$(rss "$tshape" info --summary "$tmp/big.onnx")
printf '%-34s %10s %10s %8s\n' "" "4 MB" "400 MB" "ratio"
printf '%-34s %9ss %9ss %7sx\n' "tshape info --summary: time" "$ts" "$tb" "$(ratio "$tb" "$ts")"
printf '%-34s %7s KiB %6s KiB %7sx\n' "tshape info --summary: max RSS" "$rs" "$rb" "$(ratio "$rb" "$rs")"

if $py -c 'import onnx' 2>/dev/null; then
    load='import sys, onnx; onnx.load(sys.argv[1], load_external_data=False)'
    ps=$(median_of 3 $py -c "$load" "$tmp/small.onnx")
    pb=$(median_of 3 $py -c "$load" "$tmp/big.onnx")
    qs=$(rss $py -c "$load" "$tmp/small.onnx")
    qb=$(rss $py -c "$load" "$tmp/big.onnx")
    printf '%-34s %9ss %9ss %7sx\n' "onnx.load (python3-onnx): time" "$ps" "$pb" "$(ratio "$pb" "$ps")"
    printf '%-34s %7s KiB %6s KiB %7sx\n' "onnx.load (python3-onnx): max RSS" "$qs" "$qb" "$(ratio "$qb" "$qs")"
    printf 'tshape vs onnx.load at 400 MB: %sx faster, %sx less memory\n' \
        "$(ratio "$pb" "$tb")" "$(ratio "$qb" "$rb")"
else
    echo "python3-onnx not installed: no onnx.load comparison"
fi
goal "info --summary: 400 MB time / 4 MB time" "$(ratio2 "$tb" "$ts")" "<=" 2
goals_done
