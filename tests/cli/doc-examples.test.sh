#!/bin/sh
# doc-examples.test.sh - the documentation's examples are tests. In
# man/tshape.1 every .EX/.EE block, and in README.md every ```console block,
# is read as "$ COMMAND" lines, each followed by its expected standard
# output (up to the next "$ " line or the end of the block). Each command is
# run with sh from the repository root and its output compared exactly.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Both sources become blocks between "@@BEGIN" and "@@END" lines.
{
    sed -e 's/\\(aq/'"'"'/g' -e 's/\\(dq/"/g' -e 's/\\-/-/g' -e 's/\\e/\\/g' \
        -e 's/^\.EX$/@@BEGIN/' -e 's/^\.EE$/@@END/' man/tshape.1
    awk '/^```console$/ { print "@@BEGIN"; on = 1; next }
         on && /^```$/ { print "@@END"; on = 0; next }
         on' README.md
} | awk -v dir="$tmp" '
    /^@@BEGIN$/ { inex = 1; cur = ""; next }
    /^@@END$/ { inex = 0; cur = ""; next }
    inex && /^\$ / { n++; cur = sprintf("%s/%04d", dir, n); print substr($0, 3) > (cur ".cmd"); printf "" > (cur ".exp"); next }
    inex && cur != "" { print > (cur ".exp") }
'
pass=0 fail=0
for cmd in "$tmp"/*.cmd; do
    [ -f "$cmd" ] || continue
    base=${cmd%.cmd}
    sh "$cmd" > "$base.out" 2>/dev/null
    if cmp -s "$base.out" "$base.exp"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL doc example: $(cat "$cmd")"
        diff "$base.exp" "$base.out" | head -10
    fi
done
echo "doc examples: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
