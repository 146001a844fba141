#!/bin/sh
# args-coverage.test.sh - tests/check_args.c (the argument rule: NULL, zero,
# out-of-range and unknown-flag arguments of every public function) calls
# every function that include/tshape.h declares with TS_API, in both the
# stable and the experimental part. A new public function without a call
# there fails this test. Exit 0 pass, 1 fail.
set -u
h=include/tshape.h
t=tests/check_args.c
[ -f "$h" ] && [ -f "$t" ] || { echo "args-coverage.test.sh: run from the repository root" >&2; exit 1; }
declared=$(sed -n '/^TS_API/s/^[^(]*[^A-Za-z0-9_]\(ts_[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' "$h" | sort -u)
[ -n "$declared" ] || { echo "args-coverage.test.sh: no TS_API declaration in $h" >&2; exit 1; }
# Calls, not mentions in comments: strip /* ... */ and // comments first.
called=$(sed -e 's://.*$::' "$t" | tr '\n' '\001' | sed -e 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/::g' |
         tr '\001' '\n' | grep -o 'ts_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u)
missing=$(printf '%s\n' "$declared" | while read -r f; do
    printf '%s\n' "$called" | grep -qx "$f" || printf '%s ' "$f"
done)
if [ -n "$missing" ]; then
    echo "args-coverage.test.sh: $t does not call: $missing" >&2
    exit 1
fi
echo "args-coverage.test.sh: $t calls all $(printf '%s\n' "$declared" | wc -l) public functions"
exit 0
