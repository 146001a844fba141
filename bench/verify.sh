#!/bin/sh
# verify.sh [MIB] [RUNS] - tshape verify (issue 25). Measures, best of RUNS
# (default 3), page cache warm:
#   1. headers only: a sparse safetensors model of 100 shards and 10,000
#      tensors with its index (bench/data/verify100, data holes): tshape
#      verify against a Python loop doing the same checks (the index read,
#      each shard's header parsed, the index against the headers, each
#      file's length against its header's end). Goal: tshape < 0.5 s.
#   2. --deep: a safetensors file of MIB MiB (default 1024) of random
#      bfloat16 and float32 values: tshape verify --deep (every byte read on
#      all cores, NaN/Inf counted) against the memory-bandwidth floor, a
#      plain summing pass over the same map on all cores (build/tsvalues
#      sum, as bench/stats.sh measures it). Goal: floor / tshape >= 0.5.
#   3. --deep of a torch.save file of the same size (zip members' CRC-32 and
#      NaN/Inf in one pass), against the same floor (printed, no goal).
# Exits 1 when a goal is missed.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
mib=${1:-1024}
runs=${2:-3}
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
make -s build/tsvalues >/dev/null
d=bench/data
mkdir -p $d
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$py - "$d/verify100" <<'PY'
import json, os, struct, sys
out = sys.argv[1]
if not os.path.isdir(out):
    os.makedirs(out)
    wm, total = {}, 0
    for s in range(100):
        name = "model-%05d-of-00100.safetensors" % (s + 1)
        hdr, off = {}, 0
        for k in range(100):
            t = "model.layers.%d.mlp.block.%d.weight" % (s, k)
            n = 4096 * 1024 * 2
            hdr[t] = {"dtype": "BF16", "shape": [4096, 1024], "data_offsets": [off, off + n]}
            off += n
            wm[t] = name
        total += off
        text = json.dumps(hdr, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        with open(os.path.join(out, name), "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text)
            f.truncate(8 + len(text) + off)
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": wm}, f)
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
r2() { printf "%.2f" "$(echo "$1 / $2" | bc -l)"; }
row() { printf '%-52s %9s s  %s\n' "$1" "$2" "$3"; }
status=0

# 1. headers only
loop_py='import json, os, struct, sys
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "model.safetensors.index.json")))
seen, total = {}, 0
for shard in sorted(set(idx["weight_map"].values())):
    p = os.path.join(d, shard)
    with open(p, "rb") as f:
        k = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(k))
    end = 0
    for name, v in h.items():
        if name == "__metadata__":
            continue
        seen[name] = shard
        end = max(end, v["data_offsets"][1])
        total += v["data_offsets"][1] - v["data_offsets"][0]
    assert os.path.getsize(p) == 8 + k + end
for name, shard in idx["weight_map"].items():
    assert seen.get(name) == shard
assert len(seen) == len(idx["weight_map"]) and total == idx["metadata"]["total_size"]
print("ok")'
"$tshape" verify $d/verify100 | tail -1
t_v=$(best_of "$runs" "$tshape" verify $d/verify100)
t_p=$(best_of "$runs" $py -c "$loop_py" $d/verify100)
row "tshape verify (100 shards, 10,000 tensors)" "$t_v" "goal < 0.5 s"
row "python: index + headers + lengths" "$t_p" "tshape faster by $(ratio "$t_p" "$t_v")x"
[ "$(echo "$t_v < 0.5" | bc -l)" = 1 ] || { echo "MISSED: verify of 100 shards >= 0.5 s"; status=1; }

# 2. and 3. --deep against the memory-bandwidth floor
$py - "$tmp" "$mib" <<'PY'
import json, os, struct, sys
import numpy as np
out, mib = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(25)
n = mib * (1 << 20)
half = n // 2
tensors = [("w.bf16", "BF16", (half // 2,)), ("w.f32", "F32", (half // 4,))]
hdr, off = {}, 0
for name, dt, shape in tensors:
    k = shape[0] * (2 if dt == "BF16" else 4)
    hdr[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [off, off + k]}
    off += k
text = json.dumps(hdr, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
with open(os.path.join(out, "big.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text)
    step = 1 << 24
    for name, dt, shape in tensors:
        for i in range(0, shape[0], step):
            m = min(step, shape[0] - i)
            a = rng.standard_normal(m, dtype=np.float32)
            if dt == "BF16":
                a = (a.view(np.uint32) >> 16).astype(np.uint16)
            f.write(a.tobytes())
try:
    import torch
    t = torch.from_numpy(rng.standard_normal(n // 4, dtype=np.float32))
    torch.save({"w": t}, os.path.join(out, "big.pt"))
except ImportError:
    pass
PY
f=$tmp/big.safetensors
cat "$f" > /dev/null
"$tshape" verify --deep "$f" | tail -1
t_floor=$(best_of "$runs" build/tsvalues sum "$f")
t_deep=$(best_of "$runs" "$tshape" verify --deep "$f")
t_pread=$(best_of "$runs" env TSHAPE_IO=pread "$tshape" verify --deep "$f")
gbs() { printf '%.2f GB/s' "$(echo "$(stat -c %s "$f") / $1 / 1000000000" | bc -l)"; }
row "floor: summing pass over the map ($mib MiB)" "$t_floor" "$(gbs "$t_floor")"
row "tshape verify --deep (safetensors, mapped)" "$t_deep" \
    "$(gbs "$t_deep"), $(r2 "$t_floor" "$t_deep") of the floor (goal >= 0.5)"
row "tshape verify --deep (safetensors, TSHAPE_IO=pread)" "$t_pread" \
    "$(gbs "$t_pread"), $(r2 "$t_floor" "$t_pread") of the floor"
[ "$(echo "$t_floor / $t_deep >= 0.5" | bc -l)" = 1 ] ||
    { echo "MISSED: verify --deep below 50% of the floor"; status=1; }
if [ -f "$tmp/big.pt" ]; then
    f=$tmp/big.pt
    cat "$f" > /dev/null
    t_pt=$(best_of "$runs" "$tshape" verify --deep "$f")
    row "tshape verify --deep (torch.save: CRC-32 + NaN)" "$t_pt" \
        "$(gbs "$t_pt"), $(r2 "$t_floor" "$t_pt") of the floor"
fi
exit $status
