#!/bin/sh
# makefile.test.sh - the Makefile's flags, read from `make -n` (nothing is
# built, the build directory is a temporary one):
#   - CPPFLAGS and CFLAGS given to make come after the project's own flags on
#     every compile line (after -Iinclude and -std=c11), never in their place;
#   - LDFLAGS and LDLIBS reach every link line (static CLI, shared library,
#     unit-test runner, fuzz harness);
#   - a plain `make` compiles without -Werror, `make check` and
#     `make check-fast` with it, and WERROR= on the command line removes it;
#   - the sanitizer targets scale Check's timeouts (CK_TIMEOUT_MULTIPLIER):
#     no test may fail because a build is slow or the machine loaded.
# Run by tests/cli/run.sh from the repository root. Exit 0 pass, 1 fail.
set -u
fail() { echo "makefile.test.sh: $*" >&2; exit 1; }
[ -f Makefile ] && [ -f include/tshape.h ] || fail "run from the repository root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b=$tmp/b

# The recipes make would run, one command per line (continuations joined);
# CC is a marker, so compile and link lines are the ones that start with it.
recipes() { # MAKE-ARGS...
    make -n --no-print-directory B="$b" CC=tscc "$@" 2> "$tmp/err" |
        sed -e :a -e '/\\$/N; s/\\\n//; ta' | grep '^tscc ' || {
        cat "$tmp/err" >&2
        fail "make -n $* printed no compile line"
    }
}
user='CPPFLAGS=-DTS_USER_CPPFLAGS CFLAGS=-DTS_USER_CFLAGS LDFLAGS=-Wl,-z,ts-user-ldflags LDLIBS=-lts_user_ldlibs'

# shellcheck disable=SC2086
recipes $user all "$b/run_tests" "$b/fuzz_dtype" > "$tmp/plain"
grep -- ' -c ' "$tmp/plain" > "$tmp/compile"
grep -v -- ' -c ' "$tmp/plain" > "$tmp/link"
[ "$(wc -l < "$tmp/compile")" -ge 10 ] || fail "too few compile lines: $(cat "$tmp/compile")"
while read -r line; do
    case $line in
        *' -Iinclude '*' -DTS_USER_CPPFLAGS '*) ;;
        *) fail "CPPFLAGS missing or before -Iinclude: $line" ;;
    esac
    case $line in
        *' -std=c11 '*' -DTS_USER_CFLAGS '*) ;;
        *) fail "CFLAGS missing or before the project's flags: $line" ;;
    esac
    case $line in *-Werror*) fail "a plain make compiles with -Werror: $line" ;; esac
done < "$tmp/compile"
version=$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
for out in "$b/tshape" "$b/libtshape.so.$version" "$b/run_tests" "$b/fuzz_dtype"; do
    n=0
    while read -r line; do
        case $line in *" -o $out "*) ;; *) continue ;; esac
        n=$((n + 1))
        case $line in
            *' -Wl,-z,ts-user-ldflags '*' -lts_user_ldlibs') ;;
            *) fail "LDFLAGS or LDLIBS missing (or LDLIBS not last) on the link of $out: $line" ;;
        esac
    done < "$tmp/link"
    [ $n = 1 ] || fail "expected one link line for $out, found $n"
done

for goal in check check-fast; do
    recipes "$goal" | grep -- ' -c ' > "$tmp/compile"
    grep -v -- '-Werror' "$tmp/compile" | head -1 | grep . &&
        fail "make $goal compiles without -Werror"
    recipes "$goal" WERROR= | grep -- ' -c ' | grep -- '-Werror' | head -1 | grep . &&
        fail "make $goal WERROR= still compiles with -Werror"
done
for goal in sanitize asan ubsan; do
    make -n --no-print-directory "$goal" 2>/dev/null | head -1 |
        grep -q 'CK_TIMEOUT_MULTIPLIER=' || fail "make $goal does not set CK_TIMEOUT_MULTIPLIER"
done
echo "makefile.test.sh: user flags after the project's on $(wc -l < "$tmp/plain") compile and link lines; -Werror only in check builds"
exit 0
