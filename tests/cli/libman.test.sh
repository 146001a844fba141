#!/bin/sh
# libman.test.sh - man/libtshape.3 is generated from include/tshape.h by
# scripts/gen-libman.py; it must be current (regenerate with `make man`) and
# name every exported function.
set -u
cd "$(dirname "$0")/../.." || exit 2
command -v python3 >/dev/null || { echo "python3 missing: libman check skipped"; exit 77; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
python3 scripts/gen-libman.py > "$tmp" 2>/dev/null || exit 1
if ! cmp -s "$tmp" man/libtshape.3; then
    echo "man/libtshape.3 is out of date: run 'make man'"
    exit 1
fi
missing=0
for f in $(sed -n 's/^TS_API [^(]*[ *]\(ts_[a-z0-9_]*\)(.*/\1/p' include/tshape.h); do
    grep -q "^\.B $f\$" man/libtshape.3 || { echo "libtshape.3 lacks $f"; missing=1; }
done
[ $missing = 0 ]
