#!/bin/sh
# simd.test.sh - the x86-64 vector kernels (AVX metric sums, AVX2 q8_0
# dequantisation, F16C float16 conversion) give the bits of the portable
# ones: every record of diff --values (safetensors against its F16 and Q8_0
# GGUF conversions: max abs, RMSE, NMSE, cosine per tensor) and of stats
# over the value fixtures is the same with TSHAPE_SIMD=none, and so are
# diff --metrics of two float16 arrays of 1,003 elements with NaNs
# (written here by NumPy: the vector loops leave a tail of 3, and
# NaN pairs are counted and skipped; the reference also as float32 and
# bfloat16, which the AVX kernel reads where they lie), and verify --deep's NaN and infinity
# counts (AVX2 any-test) of float16, float32 and float64 arrays of 1,003
# elements with them first, inside and in the tail (4 NaN and 3
# infinities each). On a CPU without the extensions both
# runs take the portable path and agree trivially. Exit 0 pass, 1 fail.
cd "$(dirname "$0")/../.." || exit 2
bin=${TSHAPE:-$(command -v tshape)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
check() { # NAME ARGS...: the JSON records of both runs are equal
    name=$1; shift
    n=$((n + 1))
    "$bin" --json "$@" > "$tmp/v" 2>&1
    TSHAPE_SIMD=none "$bin" --json "$@" > "$tmp/p" 2>&1
    if ! cmp -s "$tmp/v" "$tmp/p"; then
        echo "FAIL simd $name: vector and portable kernels differ:"
        diff "$tmp/p" "$tmp/v" | head -5
        fail=$((fail + 1))
    elif [ ! -s "$tmp/v" ]; then
        echo "FAIL simd $name: no output"
        fail=$((fail + 1))
    fi
}
q=tests/fixtures/qdiff
check "diff q8_0" diff --values "$q/hf" "$q/q8_0.gguf"
check "diff f16" diff --values "$q/hf" "$q/f16.gguf"
check "stats q8_0" stats "$q/q8_0.gguf"
check "stats f16" stats "$q/f16.gguf" tests/fixtures/values/f2.npy
py=/usr/bin/python3
if [ -x $py ] && $py -c 'import numpy' 2>/dev/null; then
    $py - "$tmp" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(7)
a = rng.standard_normal(1003).astype(np.float16)
b = (a + rng.standard_normal(1003) * 0.01).astype(np.float16)
a[[5, 500, 1001]] = np.nan
b[[6, 500]] = np.nan
np.save(sys.argv[1] + "/a.npy", a)
np.save(sys.argv[1] + "/b.npy", b)
# the same reference as float32 and as bfloat16 (read where they lie by
# the AVX kernel), against b
a32 = a.astype(np.float32)
np.save(sys.argv[1] + "/a32.npy", a32)
bf = (a32.view(np.uint32) >> 16).astype("<u2")
import json, struct
h = json.dumps({"x": {"dtype": "BF16", "shape": [1003], "data_offsets": [0, 2006]}}).encode()
with open(sys.argv[1] + "/abf.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + bf.tobytes())
h = json.dumps({"x": {"dtype": "F16", "shape": [1003], "data_offsets": [0, 2006]}}).encode()
with open(sys.argv[1] + "/b.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b.astype("<f2").tobytes())
# verify --deep: NaN and infinities in the first vector, inside, in the
# scalar tail, for each float width
for dt in (np.float16, np.float32, np.float64):
    x = rng.standard_normal(1003).astype(dt)
    x[[0, 37, 700, 1002]] = np.nan
    x[[3, 64, 1001]] = [np.inf, -np.inf, np.inf]
    np.save("%s/nf-%s.npy" % (sys.argv[1], np.dtype(dt).name), x)
PY
    check "metrics tail" diff --values --metrics "$tmp/a.npy" "$tmp/b.npy"
    check "metrics float32" diff --values --metrics "$tmp/a32.npy" "$tmp/b.npy"
    check "metrics bfloat16" diff --values --metrics "$tmp/abf.safetensors" "$tmp/b.safetensors"
    for dt in float16 float32 float64; do
        check "verify --deep $dt" verify --deep "$tmp/nf-$dt.npy"
        n=$((n + 1))
        if ! grep -q "holds 4 NaN and 3 infinite values" "$tmp/v"; then
            echo "FAIL simd verify --deep $dt: not 4 NaN and 3 infinities:"
            head -3 "$tmp/v"
            fail=$((fail + 1))
        fi
    done
else
    echo "simd: no $py with NumPy: the tail comparison skipped"
fi
echo "simd: $n comparisons, $fail failed"
[ $fail = 0 ]
