#!/bin/sh
# harnesses.sh [DIR] - prints DIR/fuzz_<name> (default DIR: build-fuzz) for
# each fuzz/fuzz_<name>.c whose "fuzz-needs:" functions are all declared in
# include/tshape.h; harnesses without such a line are always listed. Run from
# the repository root. A harness left out is named on stderr.
dir=${1:-build-fuzz}
for f in fuzz/fuzz_*.c; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .c)
    # the names up to the end of the line or of the comment; no globbing
    needs=$(sed -n 's/^.*fuzz-needs:\([^*]*\).*$/\1/p' "$f" | head -1)
    missing=
    set -f
    for fn in $needs; do
        grep -Eq "(^|[^A-Za-z0-9_])$fn[[:space:]]*\(" include/tshape.h || missing="$missing $fn"
    done
    set +f
    if [ -n "$missing" ]; then
        echo "fuzz: skipping $name: include/tshape.h lacks$missing" >&2
    else
        echo "$dir/$name"
    fi
done
