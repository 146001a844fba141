#!/bin/sh
# crash-output.test.sh - what a file command reported survives the death of
# the process (issue 26, item 2): tshape writes each file's report out
# before it opens the next file. The death is made deterministic with
# strace's fault injection: SIGKILL at the first openat(2) of the second
# file (strace -P), the moment it is opened. The first file's lines must
# be on standard output, for info, info --summary, stats and stats
# --json, and the third file's must not (the process did die there).
# Skipped (77) without strace (Debian: strace).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
: "${TSHAPE:=build/tshape}"
command -v strace >/dev/null 2>&1 || { echo "crash-output.test.sh: no strace, skipped"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cp tests/fixtures/values/f4.npy "$tmp/dies.npy"
# (LeakSanitizer cannot run in a process strace traces)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
export ASAN_OPTIONS
fail=0 n=0
first=tests/fixtures/values/scalar.npy third=tests/fixtures/values/i8.npy
for cmd in "info" "info --summary" "stats" "--json stats" "info --metadata"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    strace -f -o /dev/null -P "$tmp/dies.npy" -e inject=openat:signal=SIGKILL \
        "$TSHAPE" $cmd "$first" "$tmp/dies.npy" "$third" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -lt 128 ]; then
        echo "FAIL tshape $cmd: exit $rc, not killed (strace cannot inject?)"; fail=$((fail + 1)); continue
    fi
    if ! grep -q "scalar.npy" "$tmp/out"; then
        echo "FAIL tshape $cmd: killed at the second file, and the first file's report is lost:"
        sed 's/^/    /' "$tmp/out"; fail=$((fail + 1))
    elif grep -q "i8.npy" "$tmp/out"; then
        echo "FAIL tshape $cmd: the third file was reported: the process did not die there"
        fail=$((fail + 1))
    fi
done
echo "crash-output.test.sh: $n commands killed at their second file, $fail lost the first file's report"
[ $fail -eq 0 ]
