#!/bin/sh
# qdiff.test.sh - diff --values of a tiny llama (tests/fixtures/qdiff/hf)
# against its llama.cpp-style GGUF conversions (gen_qdiff.py): every tensor
# matched by its GGUF name, the Q/K rows put back in the checkpoint's order,
# F16 equal to the checkpoint, and the Q8_0 metrics (max abs, RMSE, NMSE,
# cosine) equal to NumPy's float64 ones (expected.json) within 1e-12
# relative. Exit 0 pass, 1 fail, 77 skipped (no python3).
cd "$(dirname "$0")/../.." || exit 2
py=/usr/bin/python3
[ -x $py ] || { echo "qdiff: no $py, skipped"; exit 77; }
bin=${TSHAPE:-$(command -v tshape)}
d=tests/fixtures/qdiff
"$bin" diff --values $d/hf $d/f16.gguf > /dev/null || { echo "FAIL qdiff: hf vs f16.gguf differ"; exit 1; }
"$bin" --json diff --values $d/hf $d/q8_0.gguf | $py -c '
import json, sys
want = json.load(open(sys.argv[1]))
got, bad = {}, 0
for line in sys.stdin:
    r = json.loads(line)
    if r.get("kind") and r["metrics"]:
        got[r["name"]] = r["metrics"]
if sorted(got) != sorted(want):
    print("FAIL qdiff: tensors %s, expected %s" % (sorted(got), sorted(want)))
    sys.exit(1)
for name, w in sorted(want.items()):
    g = got[name]
    heads = 4 if ".attn_q." in name else 2 if ".attn_k." in name else 0
    if g["qk_heads"] != heads or g["reference"] != "a" or g["count"] != 0 + g["count"]:
        print("FAIL qdiff: %s: qk_heads %s reference %s" % (name, g["qk_heads"], g["reference"]))
        bad += 1
    for k in ("max_abs", "rmse", "nmse", "cosine"):
        if abs(g[k] - w[k]) > 1e-12 * abs(w[k]) + 1e-300:
            print("FAIL qdiff: %s %s: %r, NumPy %r" % (name, k, g[k], w[k]))
            bad += 1
print("qdiff: %d tensors, %d failures" % (len(want), bad))
sys.exit(1 if bad else 0)
' $d/expected.json
