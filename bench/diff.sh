#!/bin/sh
# diff.sh [MIB] [RUNS] - `tshape diff --values` of two float32 .npy files of
# MIB MiB each (default 256: 67108864 elements), page cache warm, best of
# RUNS (default 3), against what a user would run instead:
#
#   tshape     `tshape diff --values A/w.npy B/w.npy`: elements not close by
#              numpy.isclose's rule, the first of them, max abs and max rel
#              difference, one pass over both maps, all cores
#   NumPy      the one-liner: a, b = np.load(A/B, mmap_mode='r');
#              np.allclose(a, b), (~np.isclose(a, b)).sum(),
#              np.abs(a - b).max()   (whole process, and its computation alone)
#
# B is A with about 0.1% of the elements moved beyond the tolerance and 1%
# moved within it. The same run checks that tshape's count of elements not
# close equals NumPy's. The files are written to a temporary directory and
# removed afterwards.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
mib=${1:-256}
runs=${2:-3}
py=/usr/bin/python3
$py -c 'import numpy' 2>/dev/null || { echo "diff.sh: $py has no NumPy: skipped" >&2; exit 0; }
tshape=${TSHAPE:-build/tshape}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/A" "$tmp/B"
n=$((mib * 262144))

$py - "$tmp/A/w.npy" "$tmp/B/w.npy" "$n" <<'EOF2'
import sys
import numpy as np
fa, fb, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = np.lib.format.open_memmap(fa, mode="w+", dtype=np.float32, shape=(n,))
b = np.lib.format.open_memmap(fb, mode="w+", dtype=np.float32, shape=(n,))
rng = np.random.default_rng(13)
step = 1 << 24
for i in range(0, n, step):
    m = min(step, n - i)
    x = rng.standard_normal(m, dtype=np.float32)
    a[i:i + m] = x
    y = x.copy()
    near = rng.integers(0, m, m // 100)
    y[near] *= np.float32(1 + 1e-6)
    far = rng.integers(0, m, m // 1000)
    y[far] += np.float32(0.5)
    b[i:i + m] = y
a.flush()
b.flush()
EOF2
cat "$tmp/A/w.npy" "$tmp/B/w.npy" > /dev/null   # warm the page cache

# diff exits 1 when the files differ (they do)
tshape_diff() { "$tshape" diff --values "$@" || [ $? = 1 ]; }
t_ts=$(median_of "$runs" tshape_diff "$tmp/A/w.npy" "$tmp/B/w.npy")
oneliner="import numpy as np,sys; a=np.load(sys.argv[1], mmap_mode='r'); b=np.load(sys.argv[2], mmap_mode='r'); print(np.allclose(a, b), (~np.isclose(a, b)).sum(), np.abs(a - b).max())"
t_np=$(median_of "$runs" "$py" -c "$oneliner" "$tmp/A/w.npy" "$tmp/B/w.npy")
t_np_compute=$($py - "$tmp/A/w.npy" "$tmp/B/w.npy" "$runs" <<'EOF2'
import sys, time
import numpy as np
a = np.load(sys.argv[1], mmap_mode="r")
b = np.load(sys.argv[2], mmap_mode="r")
best = None
for _ in range(int(sys.argv[3])):
    t0 = time.perf_counter()
    np.allclose(a, b), (~np.isclose(a, b)).sum(), np.abs(a - b).max()
    t = time.perf_counter() - t0
    best = t if best is None or t < best else best
print("%.4f" % best)
EOF2
)
check=$("$tshape" --json diff --values "$tmp/A/w.npy" "$tmp/B/w.npy" | head -1 | $py -c '
import json, sys
import numpy as np
got = json.loads(sys.stdin.readline())["values"]
a = np.load(sys.argv[1], mmap_mode="r").astype(np.float64)
b = np.load(sys.argv[2], mmap_mode="r").astype(np.float64)
ref = int((~np.isclose(a, b)).sum())
print("%d elements not close, NumPy (float64) %d: %s; max abs diff %.9g, NumPy %.9g"
      % (got["notclose"], ref, "same" if ref == got["notclose"] else "DIFFERENT",
         got["max_abs"], float(np.abs(a - b).max())))
' "$tmp/A/w.npy" "$tmp/B/w.npy")

gbs() { printf '%.1f' "$(echo "2 * $mib / 1024 / $1" | bc -l)"; }
echo "diff --values of two $mib MiB float32 .npy files ($n elements each), $(nproc) cores, page cache warm, median of $runs"
printf '  %-28s %8.3f s  %5s GB/s\n' "tshape diff --values" "$t_ts" "$(gbs "$t_ts")"
printf '  %-28s %8.3f s  %5s GB/s\n' "NumPy one-liner (process)" "$t_np" "$(gbs "$t_np")"
printf '  %-28s %8.3f s  %5s GB/s\n' "NumPy one-liner (compute)" "$t_np_compute" "$(gbs "$t_np_compute")"
echo "  tshape vs NumPy: $(ratio "$t_np" "$t_ts")x faster (process), $(ratio "$t_np_compute" "$t_ts")x (NumPy's computation alone)"
echo "  check: $check"
