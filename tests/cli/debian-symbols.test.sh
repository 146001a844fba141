#!/bin/sh
# debian-symbols.test.sh - debian/libtshape0.symbols (the Debian package's
# symbols file, which dpkg-shlibdeps reads) lists exactly the TS_API
# functions of include/tshape.h, the symbols libtshape.so.0 exports
# (symbols.test.sh checks the library against the header). A function added
# to the header without a line there fails here: run
#     sh scripts/gen-symbols.sh > debian/libtshape0.symbols.tmp &&
#         mv debian/libtshape0.symbols.tmp debian/libtshape0.symbols
# Exit 0 pass, 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
want=$(sh scripts/gen-symbols.sh) || { echo "debian-symbols.test.sh: gen-symbols.sh failed"; exit 1; }
if ! echo "$want" | cmp -s - debian/libtshape0.symbols; then
    echo "debian-symbols.test.sh: debian/libtshape0.symbols is not the header's TS_API list:"
    echo "$want" | diff debian/libtshape0.symbols - | head -10
    echo "  regenerate it: sh scripts/gen-symbols.sh > debian/libtshape0.symbols.tmp &&"
    echo "  mv debian/libtshape0.symbols.tmp debian/libtshape0.symbols"
    exit 1
fi
echo "debian-symbols.test.sh: $(grep -c '@Base' debian/libtshape0.symbols) symbols, as include/tshape.h declares"
