#!/bin/sh
# pytorch.sh - tshape info on PyTorch checkpoints against torch.load.
#
# Writes (once, into bench/data/) the same 64-tensor state dict with 4 MB and
# with 400 MB of float32 weights, in the zip format and (the large one) in
# the legacy format, then prints best-of wall times of
#   - tshape info FILE (header-only: the two sizes must take about the same
#     time), and
#   - /usr/bin/python3 -c 'import torch; torch.load(f, weights_only=True,
#     mmap=True)' (mmap needs torch >= 2.1, weights_only >= 1.13; the script
#     drops what the installed torch lacks, and says so),
# and the ratio between them. Goal: header-only, the 400 MB files at most
# 2x the 4 MB one's time; exits 1 when missed. Skipped (exit 0, saying so) when python3-torch is
# missing, so `make bench` goes on.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
d=bench/data
if ! $py -c 'import torch' 2>/dev/null; then
    echo "pytorch.sh: python3-torch is not installed (apt-get install python3-torch), skipped"
    exit 0
fi
[ -x "$tshape" ] || make -s
mkdir -p $d
$py - <<'PY'
import os, torch
d = "bench/data"
def state_dict(total_bytes):
    # 32 layers of weight + bias, like a small MLP; weights take total_bytes
    per = total_bytes // 4 // 32
    cols = 256
    g = torch.Generator().manual_seed(0)
    sd = {}
    for i in range(32):
        sd[f"layers.{i}.weight"] = torch.empty(per // cols, cols).uniform_(generator=g)
        sd[f"layers.{i}.bias"] = torch.zeros(per // cols)
    return sd
for name, size, legacy in (("torch_4mb.pt", 4 << 20, False), ("torch_400mb.pt", 400 << 20, False),
                           ("torch_400mb_legacy.pt", 400 << 20, True)):
    path = os.path.join(d, name)
    if not os.path.exists(path):
        torch.save(state_dict(size), path, _use_new_zipfile_serialization=not legacy)
PY
load_py='import sys, torch, warnings
warnings.simplefilter("ignore")
f = sys.argv[1]
try:
    sd = torch.load(f, map_location="cpu", weights_only=True, mmap=True)
except TypeError:
    try:
        sd = torch.load(f, map_location="cpu", weights_only=True)
    except TypeError:
        sd = torch.load(f, map_location="cpu")
for k, v in sd.items():
    print(k, v.dtype, tuple(v.shape))'
kind=$($py -c 'import inspect, torch
p = inspect.signature(torch.load).parameters
print("torch %s: torch.load(%s)" % (torch.__version__, ", ".join(
    x for x in ("weights_only=True", "mmap=True") if x.split("=")[0] in p) or "without weights_only"))')
echo "$kind"
row() { printf '%-40s %9s s  %s\n' "$1" "$2" "$3"; }
t_small=$(median_of 7 "$tshape" info $d/torch_4mb.pt)
row "tshape info torch_4mb.pt (64 tensors)" "$t_small"
for f in torch_400mb.pt torch_400mb_legacy.pt; do
    t=$(median_of 7 "$tshape" info $d/$f)
    row "tshape info $f" "$t" "ratio to 4 MB: $(ratio "$t" "$t_small")"
    goal "info $f: time / 4 MB time" "$(ratio2 "$t" "$t_small")" "<=" 2
done
# the load alone, after `import torch` (which takes most of the time above)
inner_py='import sys, time, torch, warnings
warnings.simplefilter("ignore")
best = None
for _ in range(3):
    t0 = time.perf_counter()
    try:
        sd = torch.load(sys.argv[1], map_location="cpu", weights_only=True, mmap=True)
    except TypeError:
        try:
            sd = torch.load(sys.argv[1], map_location="cpu", weights_only=True)
        except TypeError:
            sd = torch.load(sys.argv[1], map_location="cpu")
    dt = time.perf_counter() - t0
    best = dt if best is None or dt < best else best
    del sd
print("%.4f" % best)'
for f in torch_4mb.pt torch_400mb.pt torch_400mb_legacy.pt; do
    t=$(median_of 5 "$tshape" info $d/$f)
    p=$(median_of 3 $py -c "$load_py" $d/$f)
    row "python torch.load $f" "$p" "tshape is $(ratio "$p" "$t")x faster"
    p=$($py -c "$inner_py" $d/$f)
    row "  torch.load alone, after import" "$p" "tshape is $(ratio "$p" "$t")x faster"
done
goals_done
