#!/bin/sh
# tfckpt.sh - tshape info on a TensorFlow checkpoint reads the .index only:
# the same checkpoint (64 float32 variables) with 4 MB and with 400 MB of
# data in its shard (written sparse, by tests/fixtures/gen_tfckpt.py's table
# writer, in a temporary directory). For each, of `tshape info` (every
# variable's report, the shard's size checked): median-of-5 wall time, the
# largest maximum resident set and minor page faults (/usr/bin/time -v), and
# the ratios 400 MB / 4 MB. Goals (issue 23: the same time and the same page
# faults): time and page-fault ratios at most 1.5.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
[ -x "$tshape" ] || { echo "tfckpt.sh: build $tshape first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$py - "$tmp" <<'PY'
import os, sys
sys.path.insert(0, "tests/fixtures")
import gen_tfckpt as ck
for name, total in (("small", 4 * 1000 * 1000), ("big", 400 * 1000 * 1000)):
    d = os.path.join(sys.argv[1], name)
    os.makedirs(d)
    n = total // 64 // 4
    entries = [(b"", ck.header(1))]
    for i in range(64):
        key = ("layer_%02d/kernel/.ATTRIBUTES/VARIABLE_VALUE" % i).encode()
        entries.append((key, ck.entry(1, [n], 0, i * n * 4, n * 4, 0)))
    with open(os.path.join(d, "model.ckpt.index"), "wb") as fp:
        fp.write(ck.table(entries))
    with open(os.path.join(d, "model.ckpt.data-00000-of-00001"), "wb") as fp:
        fp.truncate(64 * n * 4)
PY

for s in small big; do
    ls -l "$tmp/$s/model.ckpt.data-00000-of-00001" | awk -v s=$s '{printf "%-6s data shard %12s bytes\n", s, $5}'
done
"$tshape" info --summary "$tmp/big/model.ckpt.index" 2>&1 | tail -1
row() { # LABEL CMD... (the index last, small and big)
    label=$1; shift
    ts=$(median_of 5 "$@" "$tmp/small/model.ckpt.index")
    tb=$(median_of 5 "$@" "$tmp/big/model.ckpt.index")
    rs=$(stat_of "Maximum resident set size (kbytes)" "$@" "$tmp/small/model.ckpt.index")
    rb=$(stat_of "Maximum resident set size (kbytes)" "$@" "$tmp/big/model.ckpt.index")
    fs=$(stat_of "Minor (reclaiming a frame) page faults" "$@" "$tmp/small/model.ckpt.index")
    fb=$(stat_of "Minor (reclaiming a frame) page faults" "$@" "$tmp/big/model.ckpt.index")
    printf '%-30s %8ss %8ss %6sx | %7s %7s KiB %5sx | %6s %7s faults %5sx\n' "$label" "$ts" "$tb" \
        "$(ratio "$tb" "$ts")" "$rs" "$rb" "$(ratio "$rb" "$rs")" "$fs" "$fb" "$(ratio "$fb" "$fs")"
    goal "$label time: 400 MB / 4 MB" "$(ratio2 "$tb" "$ts")" "<=" 1.5
    goal "$label page faults: 400 MB / 4 MB" "$(ratio2 "$fb" "$fs")" "<=" 1.5
}
printf '%-30s %9s %9s %7s | %15s RSS %6s | %21s\n' "" "4 MB" "400 MB" "ratio" "4 MB / 400 MB" "ratio" "minor page faults"
row "tshape info" "$tshape" info
goals_done
