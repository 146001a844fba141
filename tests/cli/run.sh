#!/bin/sh
# run.sh - CLI golden tests. Each case is tests/cli/golden/<command>/<case>.cmd,
# a shell command run from the repository root with `tshape` on PATH; its
# stdout, stderr and exit status must equal <case>.out, <case>.err and
# <case>.rc exactly but for the short form of pinned messages below (a
# missing .err or .out file means "empty", a missing .rc "0"). <command> is the tshape subcommand the case runs (the first one, when
# it runs several); cases about the program as a whole (usage, --help,
# --version, option handling across commands, completion) are in global/.
#
# An error message is pinned in one place. The Check suites (tests/check_*.c)
# own the library's messages and spell them out whole; a golden file owns
# what the CLI adds: the exit status, stdout, and the framing of each error
# line with the first three words of the library's message, then " [...]":
#     tshape: tests/fixtures/npy/bad_version.npy: npy version 9.0 [...]
# An expected line ending in " [...]" matches any line that begins with the
# text before the "[...]". Messages no Check suite spells out (usage and
# option errors, lines the CLI composes) are pinned whole here.
# pinned-messages.py --fix writes the short form (--update runs it), and
# pinned-messages.test.sh fails when a golden line repeats a pinned message.
#
# Then every executable tests/cli/*.test.sh runs (extra suites such as the
# NumPy cross-checks); each must exit 0 (or 77 for "skipped").
# With FAST=1 (make check-fast) the suites marked slow are not run: those with
# a line "# slow: <why>" in their first lines (the mutation suite, the NumPy
# cross-checks, the install, symbol, header and fuzz-replay tests).
#
#   TSHAPE=build/tshape sh tests/cli/run.sh            run all
#   FAST=1 TSHAPE=build/tshape sh tests/cli/run.sh     all but the slow suites
#   TSHAPE=build/tshape sh tests/cli/run.sh --update   rewrite expectations
#                                                      (review the diff!)
#   sh tests/cli/run.sh CASE...    run some cases: COMMAND/CASE, a case name
#                                  alone, or a COMMAND folder (all its cases)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${TSHAPE:=build/tshape}"
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
case $TSHAPE in /*) ;; *) TSHAPE=$root/$TSHAPE;; esac
ln -s "$TSHAPE" "$bindir/tshape"
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi

pass=0 fail=0 skip=0 slow=0
cd "$root" || exit 2
golden=$here/golden
# Cases as COMMAND/CASE, sorted; a case left directly in golden/ (from a
# branch older than the folders) is named by itself and fails below.
all_cases() {
    (cd "$golden" && find . -name '*.cmd' | sed -e 's|^\./||' -e 's|\.cmd$||' | LC_ALL=C sort)
}
if [ $# -gt 0 ]; then
    cases=
    for a in "$@"; do
        a=${a%.cmd}
        if [ -d "$golden/$a" ]; then
            cases="$cases $(all_cases | grep "^$a/")"
        elif [ -f "$golden/$a.cmd" ]; then
            cases="$cases $a"
        else
            found=$(all_cases | grep "/$a\$")
            [ -n "$found" ] || { echo "run.sh: no golden case '$a'" >&2; exit 2; }
            cases="$cases $found"
        fi
    done
else
    cases=$(all_cases)
fi
# matches EXPECTED ACTUAL: the files are equal, an expected line that ends in
# " [...]" standing for any line that begins with the text before "[...]".
# Prints the first difference (a diff, or the first line that does not match).
matches() {
    cmp -s "$1" "$2" && return 0
    if ! grep -q ' \[\.\.\.\]$' "$1"; then diff "$1" "$2" | head -20; return 1; fi
    LC_ALL=C awk '
        function mismatch(why) { if (!bad) print "line " FNR ": " why; bad = 1 }
        NR == FNR { e[++n] = $0; next }
        {
            x = e[FNR]
            if (FNR > n) mismatch("unexpected: " $0)
            else if (x ~ / \[\.\.\.\]$/) {
                p = substr(x, 1, length(x) - 5)
                if (substr($0, 1, length(p)) != p) mismatch("expected a line beginning \"" p "\", got: " $0)
            } else if ($0 != x) mismatch("expected: " x "\n  got: " $0)
            m = FNR
        }
        END {
            if (!bad && m < n) print "line " m + 1 ": missing: " e[m + 1]
            exit (bad || m != n)
        }' "$1" "$2"
}

for name in $cases; do
    g="$golden/$name"
    case $name in
        */*) ;;
        *) echo "FAIL $name: golden cases live in tests/cli/golden/<command>/: git mv $name.* into the folder of the command it runs"
           fail=$((fail + 1)); continue ;;
    esac
    out=$(mktemp) err=$(mktemp)
    PATH="$bindir:$PATH" LC_ALL=C sh "$g.cmd" >"$out" 2>"$err" </dev/null
    rc=$?
    if [ $update = 1 ]; then
        if [ -s "$out" ]; then cp "$out" "$g.out"; else rm -f "$g.out"; fi
        if [ -s "$err" ]; then cp "$err" "$g.err"; else rm -f "$g.err"; fi
        if [ $rc != 0 ]; then echo $rc > "$g.rc"; else rm -f "$g.rc"; fi
        # the messages the Check suites pin, back to their short form
        python3 "$here/pinned-messages.py" --fix "$g.out" "$g.err" ||
            echo "run.sh: $name: pinned-messages.py --fix failed; shorten its pinned messages by hand"
    fi
    ok=1
    exp_rc=0; [ -f "$g.rc" ] && exp_rc=$(cat "$g.rc")
    if [ "$rc" != "$exp_rc" ]; then echo "FAIL $name: exit status $rc, expected $exp_rc"; ok=0; fi
    for s in out err; do
        eval "actual=\$$s"
        if [ -f "$g.$s" ]; then
            if ! d=$(matches "$g.$s" "$actual"); then
                echo "FAIL $name: std$s differs:"; echo "$d"; ok=0
            fi
        elif [ -s "$actual" ]; then
            echo "FAIL $name: unexpected std$s:"; head -5 "$actual"; ok=0
        fi
    done
    rm -f "$out" "$err"
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

if [ $# -eq 0 ]; then
    for t in "$here"/*.test.sh; do
        [ -f "$t" ] || continue
        if [ "${FAST:-0}" = 1 ] && head -5 "$t" | grep -q '^# slow:'; then
            slow=$((slow + 1)); continue
        fi
        PATH="$bindir:$PATH" sh "$t"
        rc=$?
        case $rc in
            0) pass=$((pass + 1));;
            77) skip=$((skip + 1)); echo "SKIP $(basename "$t")";;
            *) fail=$((fail + 1)); echo "FAIL $(basename "$t") (exit $rc)";;
        esac
    done
fi
note=
[ $slow = 0 ] || note=", $slow slow suites not run (FAST=1)"
echo "cli: $pass passed, $fail failed, $skip skipped$note"
[ $fail = 0 ]
