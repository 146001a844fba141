#!/bin/sh
# folder-syscalls.test.sh - the system calls of a folder's small members
# (issue 28: they are the cost of a folder of 1,000 small files). For
# `info --summary` and `scan` of a folder of 40 small files, strace must
# see each member opened once, from the folder's descriptor (openat with a
# descriptor, not AT_FDCWD and the folder's path walked again each time),
# read by one call (the file whole: it ends before the buffer does), and
# no fstat per member (the listing said a regular file). Counts of calls,
# never times. Skipped (77) without strace (Debian: strace).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
: "${TSHAPE:=build/tshape}"
command -v strace >/dev/null 2>&1 || { echo "folder-syscalls.test.sh: no strace, skipped"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# (LeakSanitizer cannot run in a process strace traces)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
export ASAN_OPTIONS
mkdir "$tmp/npy" "$tmp/pkl"
i=0
while [ $i -lt 40 ]; do
    cp tests/fixtures/values/f4.npy "$tmp/npy/m$i.npy"
    cp tests/fixtures/scan/clean/arrays.pkl "$tmp/pkl/m$i.pkl"
    i=$((i + 1))
done
fail=0 n=0
# check LABEL FOLDER EXT CMD...: runs CMD under strace and counts per member
check() {
    label=$1 dir=$2 ext=$3; shift 3
    n=$((n + 1))
    # -ff: a log per thread, so that no call is split over two lines
    rm -f "$tmp"/log.*
    strace -ff -o "$tmp/log" -e trace=open,openat,read,pread64,fstat,newfstatat,statx,close \
        "$TSHAPE" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    cat "$tmp"/log.* > "$tmp/log"
    if [ $rc -ne 0 ]; then
        echo "FAIL $label: exit $rc"; sed 's/^/    /' "$tmp/err"; fail=$((fail + 1)); return
    fi
    bad=0
    i=0
    while [ $i -lt 40 ]; do
        name="m$i.$ext"
        opens=$(grep -c "open[a-z]*(.*\"[^\"]*$name\"" "$tmp/log")
        at=$(grep "openat(" "$tmp/log" | grep -c "openat([0-9][0-9]*, \"$name\"")
        if [ "$opens" -ne 1 ] || [ "$at" -ne 1 ]; then
            echo "FAIL $label: $name opened $opens times, $at of them from the folder's descriptor:"
            grep "$name" "$tmp/log" | sed 's/^/    /'
            bad=1
            break
        fi
        i=$((i + 1))
    done
    # per member: the calls on its descriptor from its openat to its close,
    # in its thread's log (the program's start and a sanitizer's runtime
    # read other files)
    per=$(awk -v ext="$ext" '
        /^openat\(/ && index($0, "." ext "\"") && $NF ~ /^[0-9]+$/ {
            fd[FILENAME, $NF] = 1; files++; next }
        /^[a-z0-9_]+\([0-9]+[,)]/ {
            call = substr($0, 1, index($0, "(") - 1)
            d = substr($0, index($0, "(") + 1) + 0
            if (!((FILENAME, d) in fd)) next
            if (call == "close") { delete fd[FILENAME, d]; next }
            if (call == "read" || call == "pread64") reads++
            else if (call ~ /stat/) stats++
        }
        END { printf "%d %d %d\n", files, reads, stats }' "$tmp"/log.*)
    set -- $per
    if [ "$1" -ne 40 ] || [ "$2" -ne 40 ] || [ "$3" -ne 0 ]; then
        echo "FAIL $label: $1 members opened, $2 reads and $3 fstat calls on their descriptors (40, 40 and 0 expected)"
        bad=1
    fi
    fail=$((fail + bad))
}
check "info --summary" "$tmp/npy" npy info --summary "$tmp/npy"
check "scan" "$tmp/pkl" pkl scan "$tmp/pkl"
echo "folder-syscalls.test.sh: $n commands, $fail with more system calls per member than expected"
[ $fail -eq 0 ]
