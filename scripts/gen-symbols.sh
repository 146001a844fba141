#!/bin/sh
# gen-symbols.sh - writes debian/libtshape0.symbols (dpkg-gensymbols'
# format) from the TS_API functions of include/tshape.h, which are exactly
# the symbols libtshape.so.0 exports (tests/cli/symbols.test.sh checks
# that): each symbol keeps the version the file gave it, a new one gets the
# current version (TS_VERSION_STRING). Run it after adding a public
# function; tests/cli/debian-symbols.test.sh fails until then.
#     sh scripts/gen-symbols.sh > debian/libtshape0.symbols.tmp &&
#         mv debian/libtshape0.symbols.tmp debian/libtshape0.symbols
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
old=debian/libtshape0.symbols
echo "libtshape.so.0 libtshape0 #MINVER#"
echo "* Build-Depends-Package: libtshape-dev"
grep -o '^TS_API[^(]*(' include/tshape.h | sed 's/($//; s/.*[ *]//' | sort -u |
    while read -r name; do
        v=
        [ -f "$old" ] && v=$(awk -v n="$name@Base" '$1 == n { print $2 }' "$old")
        echo " $name@Base ${v:-$version}"
    done
