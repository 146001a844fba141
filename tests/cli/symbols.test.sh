#!/bin/sh
# slow: builds the shared library
# symbols.test.sh - the shared library exports exactly the public API: every
# dynamic symbol it defines is a ts_ function (never a ts__ internal, never
# an unprefixed helper), it exports at least one, and every function
# include/tshape.h declares with TS_API is exported.
# The library checked is libtshape.so in the build directory of the tshape on
# PATH (built first if missing). Exit 0 pass, 77 skip (no nm), 1 fail.
set -u
fail() { echo "symbols.test.sh: $*" >&2; exit 1; }
command -v nm >/dev/null 2>&1 || { echo "symbols.test.sh: nm missing, skipped" >&2; exit 77; }
bin=$(command -v tshape) || { echo "symbols.test.sh: no tshape on PATH, skipped" >&2; exit 77; }
B=$(dirname "$(readlink -f "$bin")")
root=$(pwd)
case $B in
    "$root"/*) B=${B#"$root"/} ;;
    *) echo "symbols.test.sh: $bin is not in a build directory of $root, skipped" >&2; exit 77 ;;
esac
VERSION=$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
lib=$B/libtshape.so.$VERSION
if [ ! -f "$lib" ]; then
    tmp=$(mktemp)
    make -C "$root" B="$B" "$lib" > "$tmp" 2>&1 || { cat "$tmp" >&2; rm -f "$tmp"; fail "cannot build $lib"; }
    rm -f "$tmp"
fi

syms=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
[ -n "$syms" ] || fail "$lib exports no symbol"
bad=$(echo "$syms" | grep -v '^ts_[a-z0-9]' | tr '\n' ' ')
[ -z "$bad" ] || fail "$lib exports symbols outside the ts_ API: $bad"

declared=$(sed -n '/^TS_API/s/^[^(]*[^A-Za-z0-9_]\(ts_[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' include/tshape.h | sort -u)
missing=$(echo "$declared" | while read -r f; do
    echo "$syms" | grep -qx "$f" || printf '%s ' "$f"
done)
[ -z "$missing" ] || fail "declared in include/tshape.h but not exported by $lib: $missing"
extra=$(echo "$syms" | while read -r f; do
    echo "$declared" | grep -qx "$f" || printf '%s ' "$f"
done)
[ -z "$extra" ] || fail "exported by $lib but not declared in include/tshape.h: $extra"
echo "symbols.test.sh: $lib exports $(echo "$syms" | wc -l) ts_ functions, all declared"
exit 0
