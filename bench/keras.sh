#!/bin/sh
# keras.sh - tshape info on a Keras 3 .keras archive reads its headers only:
# the same model (64 float32 Dense kernels, written by
# tests/fixtures/gen_keras.py's layout: a stored model.weights.h5 member)
# with 4 MB and with 400 MB of weights, in a temporary directory. libhdf5
# lists the member from the file's image, whose large runs a local file maps
# instead of copying (source.c). For `tshape info`: median-of-5 wall time, the
# largest maximum resident set and minor page faults (/usr/bin/time -v), and
# the ratios 400 MB / 4 MB. Goals (issue 23: header time independent of the
# weights' size): time, RSS and page-fault ratios at most 1.5.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
[ -x "$tshape" ] || { echo "keras.sh: build $tshape first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$py - "$tmp" <<'PY'
import os, sys
import numpy as np
sys.path.insert(0, "tests/fixtures")
import gen_keras as gk
for name, total in (("small", 4 * 1000 * 1000), ("big", 400 * 1000 * 1000)):
    n = total // 64 // 4
    groups = [("", "sequential", [])]
    groups += [("layers/dense_%d" % i, "dense_%d" % i, [np.zeros((n,), np.float32)])
               for i in range(64)]
    config = {"module": "keras", "class_name": "Sequential",
              "config": {"name": "sequential", "layers": [
                  gk.layer_config("Dense", "dense_%d" % i, units=1) for i in range(64)]}}
    gk.write_keras(os.path.join(sys.argv[1], name + ".keras"), config, gk.h5_image(groups))
PY

for s in small big; do
    ls -l "$tmp/$s.keras" | awk -v s=$s '{printf "%-6s .keras %12s bytes\n", s, $5}'
done
"$tshape" info --summary "$tmp/big.keras" 2>&1 | tail -1
ts=$(median_of 5 "$tshape" info "$tmp/small.keras")
tb=$(median_of 5 "$tshape" info "$tmp/big.keras")
rs=$(stat_of "Maximum resident set size (kbytes)" "$tshape" info "$tmp/small.keras")
rb=$(stat_of "Maximum resident set size (kbytes)" "$tshape" info "$tmp/big.keras")
fs=$(stat_of "Minor (reclaiming a frame) page faults" "$tshape" info "$tmp/small.keras")
fb=$(stat_of "Minor (reclaiming a frame) page faults" "$tshape" info "$tmp/big.keras")
printf '%-12s %9s %9s %7s | %15s RSS %6s | %21s\n' "" "4 MB" "400 MB" "ratio" "4 MB / 400 MB" \
    "ratio" "minor page faults"
printf '%-12s %8ss %8ss %6sx | %7s %7s KiB %5sx | %6s %7s faults %5sx\n' "tshape info" "$ts" \
    "$tb" "$(ratio "$tb" "$ts")" "$rs" "$rb" "$(ratio "$rb" "$rs")" "$fs" "$fb" \
    "$(ratio "$fb" "$fs")"
goal "info time: 400 MB / 4 MB" "$(ratio2 "$tb" "$ts")" "<=" 1.5
goal "info peak RSS: 400 MB / 4 MB" "$(ratio2 "$rb" "$rs")" "<=" 1.5
goal "info page faults: 400 MB / 4 MB" "$(ratio2 "$fb" "$fs")" "<=" 1.5
goals_done
