#!/bin/sh
# stats.sh [MIB] [RUNS] - statistics of a float32 .npy of MIB MiB (default
# 1024: 1 GiB, 268435456 elements), page cache warm, median of RUNS (default 3):
#
#   tshape     `tshape stats --json FILE` when the CLI has the command, else
#              the library through build/tsvalues (tests/tsvalues.c: open,
#              ts_array_stats, print): count, min, max, mean, std, absmax,
#              zeros, NaN, +-Inf in one pass, all cores
#   NumPy      the one-liner computing the same statistics:
#              a = np.load(f, mmap_mode='r'); a.min(), a.max(), a.mean(),
#              a.std(), np.isnan(a).sum(), np.isinf(a).sum()
#              (whole process, and its computation alone)
#   floor      a plain summing pass over the same mmap (tsvalues sum: the
#              file as uint64 words, all cores): the memory-bandwidth floor
#
# Goals (issue 13): tshape >= 3x faster than NumPy, and >= 50% of memory
# bandwidth, i.e. floor time / tshape time >= 0.5; (issue 28) >= 70% of
# the bandwidth of `cat FILE > /dev/null`, for the file as NumPy wrote it
# and for a copy written 4 KiB at a time (dd bs=4k), and, as root, >= 80%
# of `dd bs=1M`'s on a cold page cache. Exits 1 when a goal is missed.
# The same run checks that
# tshape's mean and std are within 1e-12 relative of NumPy's float64 ones.
# The file is written to a temporary directory and removed afterwards.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
mib=${1:-1024}
runs=${2:-3}
py=/usr/bin/python3
$py -c 'import numpy' 2>/dev/null || { echo "stats.sh: $py has no NumPy: skipped" >&2; exit 0; }
make -s build/tsvalues >/dev/null
tool=build/tsvalues
tshape=${TSHAPE:-build/tshape}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/big.npy
n=$((mib * 262144))

$py - "$f" "$n" <<'EOF'
import sys
import numpy as np
f, n = sys.argv[1], int(sys.argv[2])
a = np.lib.format.open_memmap(f, mode="w+", dtype=np.float32, shape=(n,))
rng = np.random.default_rng(13)
step = 1 << 24
for i in range(0, n, step):
    m = min(step, n - i)
    a[i:i + m] = rng.standard_normal(m, dtype=np.float32) * 2 + 0.5
a[n // 3] = np.nan
a[n // 2] = np.inf
a.flush()
EOF
cat "$f" > /dev/null   # warm the page cache

if "$tshape" stats --json "$f" >/dev/null 2>&1; then
    label="tshape stats --json"
    set -- "$tshape" stats --json
else
    label="libtshape (tsvalues)"
    set -- "$tool" stats
fi
t_ts=$(median_of "$runs" "$@" "$f")
t_floor=$(median_of "$runs" "$tool" sum "$f")
t_cat=$(median_of "$runs" sh -c 'exec cat "$1" > /dev/null' sh "$f")
oneliner="import numpy as np,sys; a=np.load(sys.argv[1], mmap_mode='r'); print(a.min(), a.max(), a.mean(), a.std(), np.isnan(a).sum(), np.isinf(a).sum())"
t_np=$(median_of "$runs" "$py" -c "$oneliner" "$f")
t_np_compute=$($py - "$f" "$runs" <<'EOF'
import sys, time
import numpy as np
a = np.load(sys.argv[1], mmap_mode="r")
best = None
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    a.min(), a.max(), a.mean(), a.std(), np.isnan(a).sum(), np.isinf(a).sum()
    t = time.perf_counter() - t0
    best = t if best is None or t < best else best
print("%.4f" % best)
EOF
)
acc=$("$tool" stats "$f" | $py -c '
import json, sys
import numpy as np
got = json.loads(sys.stdin.readline())
b = np.load(sys.argv[1], mmap_mode="r").astype(np.float64)
fin = b[np.isfinite(b)]
m, s = fin.mean(), fin.std()
print("mean %.3g, std %.3g relative from NumPy float64 (%d finite of %d)"
      % (abs(got["mean"] - m) / abs(m), abs(got["std"] - s) / s, got["finite"], got["count"]))
' "$f")

gbs() { printf '%.1f' "$(echo "$mib / 1024 / $1" | bc -l)"; }
echo "stats of a $mib MiB float32 .npy ($n elements, 1 NaN, 1 Inf), $(nproc) cores, page cache warm, median of $runs"
printf '  %-28s %8.3f s  %5s GB/s\n' "$label" "$t_ts" "$(gbs "$t_ts")"
printf '  %-28s %8.3f s  %5s GB/s\n' "NumPy one-liner (process)" "$t_np" "$(gbs "$t_np")"
printf '  %-28s %8.3f s  %5s GB/s\n' "NumPy one-liner (compute)" "$t_np_compute" "$(gbs "$t_np_compute")"
printf '  %-28s %8.3f s  %5s GB/s\n' "summing pass over the mmap" "$t_floor" "$(gbs "$t_floor")"
printf '  %-28s %8.3f s  %5s GB/s\n' "cat FILE > /dev/null" "$t_cat" "$(gbs "$t_cat")"
echo "  tshape vs NumPy: $(ratio "$t_np" "$t_ts")x faster (process), $(ratio "$t_np_compute" "$t_ts")x (NumPy's computation alone); goal >= 3x"
echo "  tshape vs bandwidth floor: $(printf '%.0f' "$(echo "100 * $t_floor / $t_ts" | bc -l)")% of the summing pass's speed; goal >= 50%"
echo "  accuracy: $acc"
goal "stats: times faster than NumPy (process)" "$(ratio "$t_np" "$t_ts")" ">=" 3
goal "stats: floor time / tshape time" "$(ratio2 "$t_floor" "$t_ts")" ">=" 0.5
goal "stats: cat time / tshape time" "$(ratio2 "$t_cat" "$t_ts")" ">=" 0.7

# The same bytes written 4 KiB at a time (as downloaders write): the page
# cache then holds small pages, which a map faults in one by one.
f4k=$tmp/big4k.npy
dd if="$f" of="$f4k" bs=4k 2>/dev/null
rm -f "$f"
cat "$f4k" > /dev/null
t_ts4=$(median_of "$runs" "$@" "$f4k")
t_cat4=$(median_of "$runs" sh -c 'exec cat "$1" > /dev/null' sh "$f4k")
printf '  %-28s %8.3f s  %5s GB/s\n' "stats, file written by 4 KiB" "$t_ts4" "$(gbs "$t_ts4")"
printf '  %-28s %8.3f s  %5s GB/s\n' "cat of it" "$t_cat4" "$(gbs "$t_cat4")"
goal "stats: cat time / tshape time (written by 4 KiB)" "$(ratio2 "$t_cat4" "$t_ts4")" ">=" 0.7
# Cold page cache (root only: the caches are dropped before each run),
# against dd's sequential read of the same file.
if [ -w /proc/sys/vm/drop_caches ]; then
    cold() {
        i=0
        while [ $i -lt "$runs" ]; do
            sync; echo 3 > /proc/sys/vm/drop_caches
            t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
            echo "$t1 - $t0" | bc -l
            i=$((i + 1))
        done | sort -g | awk '{ v[NR] = $1 } END { printf "%.4f\n", v[int((NR + 1) / 2)] }'
    }
    t_tsc=$(cold "$@" "$f4k")
    t_dd=$(cold dd if="$f4k" of=/dev/null bs=1M)
    printf '  %-28s %8.3f s  %5s GB/s\n' "stats, cold page cache" "$t_tsc" "$(gbs "$t_tsc")"
    printf '  %-28s %8.3f s  %5s GB/s\n' "dd bs=1M, cold page cache" "$t_dd" "$(gbs "$t_dd")"
    goal "stats: dd time / tshape time (cold cache)" "$(ratio2 "$t_dd" "$t_tsc")" ">=" 0.8
else
    echo "  cold page cache: not measured (dropping the caches needs root)"
fi
goals_done
