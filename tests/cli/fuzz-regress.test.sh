#!/bin/sh
# slow: builds the libFuzzer harnesses with clang
# fuzz-regress.test.sh - every input that once crashed a fuzz harness (kept
# in tests/fixtures/fuzz-crashes/<harness>/) is replayed through that
# harness, with its invariants and sanitizers (make fuzz: clang libFuzzer,
# ASan, UBSan) and bench/fuzz.sh's limits (an allocation over 256 MiB or
# 1 GiB resident fails, so an allocation a small file controls is caught).
# Skipped (77) when clang cannot build libFuzzer binaries.
set -u
cd "$(dirname "$0")/../.." || exit 2
command -v clang >/dev/null 2>&1 || { echo "fuzz-regress: no clang, skipped"; exit 77; }
if ! make -s fuzz >/tmp/fuzz-regress-build.$$ 2>&1; then
    if grep -q 'fuzzer' /tmp/fuzz-regress-build.$$; then
        echo "fuzz-regress: clang cannot build libFuzzer harnesses, skipped"
        rm -f /tmp/fuzz-regress-build.$$
        exit 77
    fi
    cat /tmp/fuzz-regress-build.$$
    rm -f /tmp/fuzz-regress-build.$$
    exit 1
fi
rm -f /tmp/fuzz-regress-build.$$
fail=0 n=0
for d in tests/fixtures/fuzz-crashes/*/; do
    h=$(basename "$d")
    [ -x "build-fuzz/$h" ] || { echo "fuzz-regress: harness $h is not built"; fail=1; continue; }
    for f in "$d"*; do
        n=$((n + 1))
        if ! "build-fuzz/$h" -malloc_limit_mb=256 -rss_limit_mb=1024 "$f" >/dev/null 2>&1; then
            echo "fuzz-regress: $h fails again on $f"
            fail=1
        fi
    done
done
echo "fuzz-regress: $n former crash inputs replayed, $([ $fail = 0 ] && echo none fails || echo FAILURES)"
exit $fail
