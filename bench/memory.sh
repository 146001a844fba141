#!/bin/sh
# memory.sh - peak resident memory against input size for the worst cases of
# issue 16 (memory that a small or sparse file controls). Each input is
# generated in a temporary folder (sparse where it can be), each command runs
# once under a time limit, and the row gives its peak resident memory (the
# child's ru_maxrss, read with wait4 by a Python driver: no external timing
# tool), the ratio to the input size, the wall time and the exit status:
#   - GGUF with one 100 MiB string value: info --metadata, and --json;
#   - a valid 89 MB safetensors header (726,377 tensors, realistic names);
#   - MXNet .params of 10M empty records (40 MB, beyond the array cap: it
#     fails at the count) and of 2^20 (the cap; it stops at the records'
#     memory bound, 4x the file + 16 MiB);
#   - standard input: `tshape size` fed one 300 MB line, `tshape info -` fed
#     300 MB from /dev/zero (each bounded by head -c and the time limit).
# Prints one row per case.
set -e
cd "$(dirname "$0")/.."
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
[ -x "$tshape" ] || { echo "memory.sh: $tshape is not built (make)" >&2; exit 2; }
[ -x $py ] || { echo "memory.sh: no $py, skipped"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tshape-memory.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; inputs in $tmp"
CC=${CC:-cc}
b=${BENCH_BUILD:-build/bench}
mkdir -p "$b"
$CC -std=c11 -O2 -Wall -Wextra -o "$b/maxrss" bench/maxrss.c

# ---- inputs (a separate process: the driver of the runs must stay small) ----
$py - "$tmp" <<'PY'
import os, struct, sys
d = sys.argv[1]

def gguf_string(path, n):
    with open(path, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1))
        f.write(struct.pack("<Q", 3) + b"big" + struct.pack("<IQ", 8, n))
        f.truncate(f.tell() + n)          # sparse: n zero bytes

def safetensors_header(path, target):
    # Names of a mixture-of-experts model, (64, 64) BF16 tensors, the data
    # a hole: a valid file whose header is about `target` bytes.
    parts, off, n, size = [], 0, 0, 2
    while size < target:
        l, e = divmod(n, 4096)
        name = "model.layers.%d.mlp.experts.%d.%s.weight" % (
            l, e // 3, ("gate_proj", "up_proj", "down_proj")[e % 3])
        s = '"%s":{"dtype":"BF16","shape":[64,64],"data_offsets":[%d,%d]}' % (name, off, off + 8192)
        parts.append(s)
        size += len(s) + 1
        off += 8192
        n += 1
    text = ("{" + ",".join(parts) + "}").encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + off)
    with open(path + ".count", "w") as f:
        f.write("%d %d\n" % (n, len(text) + 8))

def mxnet_empty(path, n):
    # Legacy records of ndim 0 are 4 zero bytes each; no names (a zero u64).
    with open(path, "wb") as f:
        f.write(struct.pack("<QQQ", 0x112, 0, n))
        f.truncate(24 + 4 * n + 8)

gguf_string(os.path.join(d, "string.gguf"), 100 << 20)
safetensors_header(os.path.join(d, "header.safetensors"), 89000000)
mxnet_empty(os.path.join(d, "10M.params"), 10 * 1000 * 1000)
mxnet_empty(os.path.join(d, "cap.params"), 1 << 20)
PY

# ---- the runs ------------------------------------------------------------------
# case LABEL INPUT_BYTES COMMAND...: one row.
case_() {
    label=$1 size=$2
    shift 2
    set -- $("$b/maxrss" 60 "$@" 2>"$tmp/err") "$label" "$size"
    # $1 KiB, $2 s, $3.. result, then label and size at the end
    eval "label=\${$(($#-1))}; size=\${$#}"
    kib=$1 wall=$2 result=$3
    [ "$3" = exit ] || [ "$3" = signal ] && result="$3 $4"
    first=$(head -n 1 "$tmp/err" | sed "s|$tmp/||" | cut -c1-70)
    case $result in "exit 0") first= ;; esac
    awk -v l="$label" -v s="$size" -v k="$kib" -v w="$wall" -v r="$result" -v e="$first" 'BEGIN {
        printf "%-44s %9.1f MiB %8.1f MiB %7.2fx %7.2f s  %s%s\n", l, s / 1048576, k / 1024,
               k * 1024 / s, w, r, (e != "" ? ": " e : "") }'
}
printf '%-44s %13s %12s %8s %9s  %s\n' case input "peak RSS" ratio wall result
sz() { wc -c <"$1" | tr -d ' '; }
g=$tmp/string.gguf
case_ "GGUF 100 MiB string: info --metadata" "$(sz "$g")" "$tshape" info --metadata "$g"
case_ "GGUF 100 MiB string: --json info --metadata" "$(sz "$g")" "$tshape" --json info --metadata "$g"
s=$tmp/header.safetensors
set -- $(cat "$s.count")
count=$1 hsize=$2
case_ "safetensors 89 MB header ($count): info" "$hsize" "$tshape" info "$s"
case_ "safetensors 89 MB header: info --summary" "$hsize" "$tshape" info --summary "$s"
case_ "MXNet 10M empty records: info" "$(sz "$tmp/10M.params")" "$tshape" info "$tmp/10M.params"
case_ "MXNet 2^20 empty records (the cap): info" "$(sz "$tmp/cap.params")" "$tshape" info "$tmp/cap.params"
rm -f "$g" "$s" "$tmp"/*.params
line=300000000
case_ "stdin: size fed one 300 MB line" $line \
    sh -c "head -c $line /dev/zero | tr '\\0' 1 | '$tshape' size"
case_ "stdin: info - fed 300 MB of /dev/zero" $line \
    sh -c "head -c $line /dev/zero | '$tshape' info -"
