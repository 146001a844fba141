#!/bin/sh
# convert.sh [MIB] [RUNS] - tshape convert on a checkpoint of MIB MiB
# (default 1024: 16 float32 tensors of MIB/16 MiB, random bytes), page
# cache warm, best of RUNS (default 3), in one temporary folder on one disk:
#
#   cp          `cp big.safetensors copy` (no fsync: the data may still be
#               in the page cache when cp exits)
#   cp + sync   `cp` then `sync copy` (the copy on the disk, as convert's)
#   convert     npz (stored) -> safetensors, safetensors -> npz,
#               safetensors -> safetensors; each written under a temporary
#               name, fsync'ed, read back and verified, renamed; and
#               npz -> safetensors with --no-verify
#
# Goals (issue 14): convert at >= 50% of cp's speed (time of cp / time of
# convert >= 0.5), and a peak resident set of a fixed buffer plus at most
# the largest tensor. Times and peak RSS come from bench/runstat.c
# (posix_spawn + wait4), built here; no external tool. The input is made
# with tshape itself: a folder of .npy files (header by printf, data from
# /dev/urandom) converted to the .npz and .safetensors inputs.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
mib=${1:-1024}
runs=${2:-3}
tshape=${TSHAPE:-build/tshape}
[ -x "$tshape" ] || { echo "convert.sh: $tshape is not built (make)" >&2; exit 2; }
case $tshape in /*) ;; *) tshape=$PWD/$tshape;; esac
CC=${CC:-cc}
d=${BENCH_BUILD:-build/bench}
mkdir -p "$d"
$CC -O2 -o "$d/runstat" bench/runstat.c
runstat=$PWD/$d/runstat
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

ratio2() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

# best RUNS: "SECONDS MAXRSS_KIB" of the fastest run; OUT removed before each
best() {
    out=$1; shift
    b=
    k=0
    while [ $k -lt "$runs" ]; do
        rm -rf "$out"; sync
        r=$("$runstat" "$@")
        if [ -z "$b" ] || [ "$(echo "${r% *} < ${b% *}" | bc -l)" = 1 ]; then b=$r; fi
        k=$((k + 1))
    done
    rm -rf "$out"
    echo "$b"
}
cp_t=$(best copy cp big.safetensors copy)
sync_t=$(best copy sh -c 'cp big.safetensors copy && sync copy')
echo "checkpoint: $n tensors, $size bytes; best of $runs; RSS = peak resident set"
printf '%-44s %8s s %9s KiB\n' "cp" "${cp_t% *}" "${cp_t#* }"
printf '%-44s %8s s %9s KiB\n' "cp + sync" "${sync_t% *}" "${sync_t#* }"
for c in "big.npz o.safetensors" "big.safetensors o.npz" "big.safetensors o.safetensors" \
         "--no-verify big.npz o.safetensors"; do
    set -- $c
    eval "out=\${$#}"
    r=$(best "$out" "$tshape" convert "$@")
    printf '%-44s %8s s %9s KiB   %s of cp speed, %s of cp + sync\n' "convert $c" "${r% *}" \
        "${r#* }" "$(ratio2 "${cp_t% *}" "${r% *}")" "$(ratio2 "${sync_t% *}" "${r% *}")"
done
echo "largest tensor: $((per * 4 / 1024)) KiB; goal: >= 0.5 of cp speed, RSS <= buffer + largest tensor"
