#!/bin/sh
# slow: compiles the header with four compilers
# header.test.sh - include/tshape.h is a self-contained public header: it
# compiles alone, and used, as strict C11 (gcc and clang: -std=c11 -pedantic
# -Wall -Wextra -Werror and more) and as C++11 (g++, clang++), both with and
# without TS_EXPERIMENTAL_API; without it the experimental part is not
# declared (a program using it does not compile) and the stable part does
# not depend on it; it includes only <stddef.h> and <stdint.h>; every macro,
# type and function it declares carries the TS_/ts_ prefix. Compilers that
# are not installed are skipped. Exit 0 pass, 77 skip (no compiler at all),
# 1 fail.
set -u
fail() { echo "header.test.sh: $*" >&2; status=1; }
status=0
h=include/tshape.h
[ -f "$h" ] || { echo "header.test.sh: run from the repository root" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Alone, then used: the initialiser macro and a few calls must compile too.
printf '#include "tshape.h"\n' > "$tmp/alone.c"
cat > "$tmp/use.c" <<'EOF2'
#include "tshape.h"
int use_header(void);
int use_header(void)
{
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    int ok = ts_shape_parse("(2,3)", 5, 0, &s, NULL, &err) == TS_OK;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ok = ok && o.struct_size == sizeof o;
#ifdef TS_EXPERIMENTAL_API
    ts_dlpack_tensor t;
    ts_shape out = TS_SHAPE_INIT;
    (void)t;
    ok = ok && ts_einops_shape(TS_EINOPS_REARRANGE, "a b -> b a", &s, NULL, 0, &out, &err) == TS_OK;
    ts_shape_free(&out);
#endif
    ts_shape_free(&s);
    return ok && TS_VERSION_MAJOR >= 0;
}
EOF2
# Uses the experimental part without asking for it: must not compile.
cat > "$tmp/sneak.c" <<'EOF2'
#include "tshape.h"
int sneak(void);
int sneak(void)
{
    ts_dlpack_tensor t;
    t.ndim = 0;
    return (int)sizeof t + (int)TS_DLPACK_CPU;
}
EOF2
cp "$tmp/alone.c" "$tmp/alone.cc"
cp "$tmp/use.c" "$tmp/use.cc"

CWARN="-std=c11 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
-Wundef -Wshadow -Wcast-qual -Wwrite-strings -Wvla"
XWARN="-std=c++11 -pedantic -Werror -Wall -Wextra -Wundef -Wshadow -Wold-style-cast"
ran=0
for cc in gcc clang; do
    command -v $cc >/dev/null 2>&1 || { echo "header.test.sh: $cc not installed, skipped" >&2; continue; }
    for src in alone use; do
        for def in "" -DTS_BUILDING_SHARED -DTS_EXPERIMENTAL_API \
                   "-DTS_EXPERIMENTAL_API -DTS_BUILDING_SHARED"; do
            # shellcheck disable=SC2086
            $cc $CWARN $def -Iinclude -c "$tmp/$src.c" -o "$tmp/$src.o" 2> "$tmp/log" ||
                { cat "$tmp/log" >&2; fail "$h does not compile as C11 with $cc $def ($src.c)"; }
        done
    done
    # shellcheck disable=SC2086
    if $cc $CWARN -Iinclude -c "$tmp/sneak.c" -o "$tmp/sneak.o" 2> /dev/null; then
        fail "$h declares the experimental part without TS_EXPERIMENTAL_API ($cc)"
    fi
    # shellcheck disable=SC2086
    $cc $CWARN -DTS_EXPERIMENTAL_API -Iinclude -c "$tmp/sneak.c" -o "$tmp/sneak.o" 2> "$tmp/log" ||
        { cat "$tmp/log" >&2; fail "sneak.c does not compile with TS_EXPERIMENTAL_API ($cc)"; }
    ran=$((ran + 1))
done
for cxx in g++ clang++; do
    command -v $cxx >/dev/null 2>&1 || { echo "header.test.sh: $cxx not installed, skipped" >&2; continue; }
    for src in alone use; do
        for def in "" -DTS_EXPERIMENTAL_API; do
            # shellcheck disable=SC2086
            $cxx $XWARN $def -x c++ -Iinclude -c "$tmp/$src.cc" -o "$tmp/$src.o" 2> "$tmp/log" ||
                { cat "$tmp/log" >&2; fail "$h does not compile as C++11 with $cxx $def ($src.cc)"; }
        done
    done
    ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "header.test.sh: no compiler, skipped" >&2; exit 77; }

# Only the two standard headers.
incs=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(.*\)/\1/p' "$h" | sort -u | tr '\n' ' ')
[ "$incs" = "<stddef.h> <stdint.h> " ] || fail "$h includes $incs(only <stddef.h> <stdint.h> allowed)"

# Prefixes: macros TS_ (the include guard is TSHAPE_H), types and functions ts_.
bad=$(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$h" |
      grep -v -e '^TS_' -e '^TSHAPE_H$' | tr '\n' ' ')
[ -z "$bad" ] || fail "macros without the TS_ prefix: $bad"
bad=$(sed -n -e 's/^}[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' \
             -e 's/^typedef[^(]*[[:space:]*]\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' "$h" |
      grep -v '^ts_' | tr '\n' ' ')
[ -z "$bad" ] || fail "types without the ts_ prefix: $bad"
bad=$(sed -n '/^TS_API/s/^[^(]*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' "$h" |
      grep -v '^ts_[a-z0-9]' | tr '\n' ' ')
[ -z "$bad" ] || fail "functions without the ts_ prefix: $bad"
n=$(grep -c '^TS_API' "$h")
[ "$n" -gt 0 ] || fail "no TS_API declaration found in $h"
nexp=$(sed -n '/^#ifdef TS_EXPERIMENTAL_API/,/^#endif \/\* TS_EXPERIMENTAL_API/p' "$h" | grep -c '^TS_API')
[ "$nexp" -gt 0 ] && [ "$nexp" -lt "$n" ] || fail "expected a stable and an experimental part, found $nexp of $n functions experimental"
[ $status = 0 ] && echo "header.test.sh: $h compiles alone as C11 and C++11 with and without TS_EXPERIMENTAL_API ($ran compilers), $((n - nexp)) stable + $nexp experimental functions, prefixes ok"
exit $status
