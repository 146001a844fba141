#!/bin/sh
# convert.sh [MIB] [RUNS] - tshape convert on a checkpoint of MIB MiB
# (default 1024: 16 float32 tensors of MIB/16 MiB, random bytes), page
# cache warm, median of RUNS (default 9: single runs vary 2x with writeback
# and the machine's other work) after a round not counted, in one
# temporary folder on one disk:
#
#   cp          `cp big.safetensors copy` (no fsync: the data may still be
#               in the page cache when cp exits)
#   cp + sync   `cp` then `sync copy` (the copy on the disk, as convert's)
#   convert     npz (stored) -> safetensors, safetensors -> npz,
#               safetensors -> safetensors; each written under a temporary
#               name, fsync'ed, read back and verified, renamed; and
#               npz -> safetensors with --no-verify
#
# Goals (issue 28): convert at least as fast as `cp` + `sync` (time of
# cp + sync / time of convert >= 1.0, the median of paired rounds), and
# (issue 14) a peak resident set of at most the largest tensor plus 64 MiB
# of buffers. Exits 1 when a goal is missed. Times and peak RSS come from
# bench/runstat.c (posix_spawn + wait4), built here; no external tool. The input is made
# with tshape itself: a folder of .npy files (header by printf, data from
# /dev/urandom) converted to the .npz and .safetensors inputs.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
mib=${1:-1024}
runs=${2:-9}
tshape=${TSHAPE:-build/tshape}
[ -x "$tshape" ] || { echo "convert.sh: $tshape is not built (make)" >&2; exit 2; }
case $tshape in /*) ;; *) tshape=$PWD/$tshape;; esac
CC=${CC:-cc}
d=${BENCH_BUILD:-build/bench}
mkdir -p "$d"
$CC -O2 -o "$d/runstat" bench/runstat.c
runstat=$PWD/$d/runstat
export runstat
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tshape-bench-convert.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# ---- the checkpoint: 16 tensors (1 when MIB < 16) ------------------------------
n=16; [ "$mib" -lt 16 ] && n=1
per=$((mib * 1048576 / n / 4))     # float32 elements per tensor
mkdir src
i=0
while [ $i -lt $n ]; do
    # a NumPy v1.0 header of 118 bytes: data at byte 128
    dict="{'descr': '<f4', 'fortran_order': False, 'shape': ($per,), }"
    { printf '\223NUMPY\001\000\166\000'; printf '%-117s\n' "$dict"; } > "src/layer$i.weight.npy"
    head -c $((per * 4)) /dev/urandom >> "src/layer$i.weight.npy"
    i=$((i + 1))
done
"$tshape" convert src big.npz >/dev/null
"$tshape" convert src big.safetensors >/dev/null
cat big.npz big.safetensors > /dev/null   # warm the page cache
size=$(wc -c < big.safetensors)

# The commands, run in turn in each of RUNS rounds (paired: a drift of the
# machine's speed hits all alike), OUT removed and `sync` before each run.
# Each row: the median time and peak RSS, and the median over rounds of
# cp's (and cp + sync's) time divided by the command's in the same round.
set -- "copy cp big.safetensors copy" \
       "copy sh -c 'cp big.safetensors copy && sync copy'" \
       "o.safetensors $tshape convert big.npz o.safetensors" \
       "o.npz $tshape convert big.safetensors o.npz" \
       "o.safetensors $tshape convert big.safetensors o.safetensors" \
       "o.safetensors $tshape convert --no-verify big.npz o.safetensors"
# A first round is not counted: right after the inputs were written every
# command in it took 2-10x its usual time (writeback of the 3 GiB of
# inputs, ext4's allocation of the freed blocks).
k=-1
: > rounds.txt
r=
while [ $k -lt "$runs" ]; do
    c=0
    for cmd in "$@"; do
        out=${cmd%% *}
        rm -rf "$out"; sync
        eval "r=\$(\"\$runstat\" ${cmd#* })"
        if [ $k -ge 0 ]; then echo "$k $c $r" >> rounds.txt; fi
        c=$((c + 1))
    done
    k=$((k + 1))
done
rm -rf copy o.safetensors o.npz
echo "checkpoint: $n tensors, $size bytes; median of $runs paired rounds; RSS = peak resident set"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
# med C FIELD: the median over rounds of FIELD of command C (t: seconds,
# rss: KiB, cp: cp's time / C's, sync: cp + sync's time / C's)
med() {
    awk -v c="$1" -v f="$2" '{ t[$1, $2] = $3; m[$1, $2] = $4; if ($1 + 1 > n) n = $1 + 1 }
        END { for (k = 0; k < n; k++)
                  v[k] = f == "t" ? t[k, c] : f == "rss" ? m[k, c] : f == "cp" ? t[k, 0] / t[k, c] : t[k, 1] / t[k, c]
              for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
              printf (f == "rss" ? "%d" : "%.4f"), v[int((n - 1) / 2)] }' rounds.txt
}
printf '%-44s %8s s %9s KiB\n' "cp" "$(med 0 t)" "$(med 0 rss)"
printf '%-44s %8s s %9s KiB\n' "cp + sync" "$(med 1 t)" "$(med 1 rss)"
c=2
for label in "big.npz o.safetensors" "big.safetensors o.npz" "big.safetensors o.safetensors" \
             "--no-verify big.npz o.safetensors"; do
    printf '%-44s %8s s %9s KiB   %.2f of cp speed, %.2f of cp + sync\n' "convert $label" \
        "$(med $c t)" "$(med $c rss)" "$(med $c cp)" "$(med $c sync)"
    if [ $c -lt 5 ]; then
        goal "convert $label: speed / cp + sync's" "$(printf %.2f "$(med $c sync)")" ">=" 1.0
        goal "convert $label: peak RSS KiB" "$(med $c rss)" "<=" $((per * 4 / 1024 + 65536))
    fi
    c=$((c + 1))
done
echo "largest tensor: $((per * 4 / 1024)) KiB"
goals_done
