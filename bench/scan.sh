#!/bin/sh
# scan.sh - tshape scan against what a user would run instead.
#
# Writes (once, into bench/data/, with Python's standard library only) two
# torch.save-layout checkpoints of 64 tensors with 4 MB and 400 MB of weights
# (stored members, as torch writes them) and a folder of 1,000 small pickles
# (state-dict pickles of about 2 KB, protocol 2 and 4), then prints median
# wall times and ratios:
#   - tshape scan of the 4 MB and of the 400 MB checkpoint: a scan reads only
#     the pickles, so the two take about the same time, and the peak resident
#     memory of the 400 MB scan (bench/maxrss.c) stays far below the file's
#     size: the weights' pages are never touched;
#   - tshape scan of the folder of 1,000 pickles against a Python loop that
#     runs pickletools.genops over each (walking the opcodes, the least a
#     Python scanner does: picklescan and modelscan do this and more), in
#     21 paired rounds (lib.sh's paired): median wall and CPU times (user +
#     system, which a loaded machine does not blur) and the median of the
#     per-round ratios, whose goal is >= 20x.
# Exits 1 when a goal is missed.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
d=bench/data
[ -x "$tshape" ] || make -s
[ -x "$py" ] || { echo "scan.sh: no $py, skipped"; exit 0; }
mkdir -p "$d"
$py - "$d" <<'PY'
import os, pickle, struct, sys, zlib
d = sys.argv[1]

def pickle_of(n_tensors, per):
    """torch.save's data.pkl of {'layers.i.weight': tensor}, protocol 2."""
    out = bytearray(b"\x80\x02}(")
    for i in range(n_tensors):
        name = ("layers.%d.weight" % i).encode()
        out += b"X" + struct.pack("<I", len(name)) + name
        out += b"ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
        out += b"ctorch\nFloatStorage\n"
        key = str(i).encode()
        out += b"X" + struct.pack("<I", len(key)) + key + b"X\x03\x00\x00\x00cpu"
        out += b"J" + struct.pack("<i", per // 4) + b"tQK\x00J" + struct.pack("<i", per // 4)
        out += b"\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtR"
    out += b"u."
    return bytes(out)

def write_zip(path, members):
    """members: (name, size, chunk-producer); stored, torch-like."""
    with open(path, "wb") as f:
        central = bytearray()
        for name, data in members:
            name = name.encode()
            if isinstance(data, bytes):
                crc, size = zlib.crc32(data), len(data)
            else:
                crc, size = 0, data
            off = f.tell()
            f.write(struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0, crc, size, size,
                                len(name), 0) + name)
            if isinstance(data, bytes):
                f.write(data)
            else:
                block = b"\0" * (1 << 20)
                left = size
                while left:
                    f.write(block[:min(left, len(block))])
                    left -= min(left, len(block))
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0, crc,
                                   size, size, len(name), 0, 0, 0, 0, 0, off) + name
        cd = f.tell()
        f.write(central)
        f.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(members), len(members),
                            len(central), cd, 0))

for name, total in (("scan_4mb.pt", 4 << 20), ("scan_400mb.pt", 400 << 20)):
    path = os.path.join(d, name)
    if os.path.exists(path):
        continue
    per = total // 64
    folder = name[:-3]
    members = [(folder + "/data.pkl", pickle_of(64, per))]
    members += [(folder + "/data/%d" % i, per) for i in range(64)]
    members += [(folder + "/version", b"3\n")]
    write_zip(path, members)

folder = os.path.join(d, "scan_1000")
if not os.path.isdir(folder):
    os.makedirs(folder)
    for i in range(1000):
        data = pickle_of(16, 64) if i % 2 else pickle.dumps(
            {"epoch": i, "lr": 0.1, "names": ["a%d" % k for k in range(40)],
             "hist": [float(k) for k in range(60)]}, protocol=4)
        with open(os.path.join(folder, "p%04d.pkl" % i), "wb") as f:
            f.write(data)
PY

t4=$(median_of 5 "$tshape" scan "$d/scan_4mb.pt")
t400=$(median_of 5 "$tshape" scan "$d/scan_400mb.pt")
echo "tshape scan, 64-tensor checkpoint of   4 MB: ${t4} s"
echo "tshape scan, 64-tensor checkpoint of 400 MB: ${t400} s ($(ratio "$t400" "$t4")x the 4 MB one)"
b=build/bench
mkdir -p "$b"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$b/maxrss" bench/maxrss.c
set -- $("$b/maxrss" 60 "$tshape" scan "$d/scan_400mb.pt")
echo "peak resident memory of the 400 MB scan: $1 KiB" \
    "(the file: $(($(wc -c < "$d/scan_400mb.pt") / 1024)) KiB)"

genops='import pickletools, sys, os
d = sys.argv[1]
n = 0
for name in sorted(os.listdir(d)):
    with open(os.path.join(d, name), "rb") as f:
        for op, arg, pos in pickletools.genops(f.read()):
            n += op.name in ("GLOBAL", "STACK_GLOBAL", "INST")
print(n)'
# Paired rounds (bench/spawntime.c through lib.sh's paired: no shell or
# `date` process inside the timed span, which added some 6 ms to a 12 ms
# scan), the two commands in turn: medians of wall and CPU time (user +
# system, which a loaded machine does not blur) and the median of the
# per-round ratios, on which the goal is checked.
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
set -- $(paired 21 "$tshape" scan "$d/scan_1000" :: "$py" -c "$genops" "$d/scan_1000")
ts=${1:-} tp=${2:-} r1000=${3:-} cs=${4:-} cp=${5:-}
[ -n "$cp" ] || { echo "scan.sh: the paired rounds failed"; exit 1; }
echo "1,000 pickles: tshape scan ${ts} s (CPU ${cs} s), Python pickletools.genops loop" \
    "${tp} s (CPU ${cp} s): tshape is ${r1000}x faster (median of 21 paired rounds)," \
    "uses $(ratio "$cp" "$cs")x less CPU"
goal "scan of 1,000 pickles: times faster than Python" "$r1000" ">=" 20
goal "scan: 400 MB time / 4 MB time" "$(ratio2 "$t400" "$t4")" "<=" 2
goals_done
