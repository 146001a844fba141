#!/bin/sh
# simd.test.sh - the x86-64 vector kernels (AVX metric sums, AVX2 q8_0
# dequantisation, F16C float16 conversion) give the bits of the portable
# ones: every record of diff --values (safetensors against its F16 and Q8_0
# GGUF conversions: max abs, RMSE, NMSE, cosine per tensor) and of stats
# over the value fixtures is the same with TSHAPE_SIMD=none, and so are
# diff --metrics of two float16 arrays of 1,003 elements with NaNs
# (written here by NumPy: the vector loops leave a tail of 3, and
# NaN pairs are counted and skipped). On a CPU without the extensions both
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
PY
    check "metrics tail" diff --values --metrics "$tmp/a.npy" "$tmp/b.npy"
else
    echo "simd: no $py with NumPy: the tail comparison skipped"
fi
echo "simd: $n comparisons, $fail failed"
[ $fail = 0 ]
