#!/bin/sh
# man-examples.test.sh - every example in man/tshape.1 is a test. In each
# .EX/.EE block, a line "$ COMMAND" is run from the repository root and its
# standard output must equal the lines that follow, up to the next "$ " line
# or the end of the block. roff escapes are undone first.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
man=man/tshape.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Split the examples into numbered command/expected-output files.
sed -e 's/\\(aq/'"'"'/g' -e 's/\\(dq/"/g' -e 's/\\-/-/g' -e 's/\\e/\\/g' "$man" | awk -v dir="$tmp" '
    /^\.EX/ { inex = 1; cur = ""; next }
    /^\.EE/ { inex = 0; cur = ""; next }
    inex && /^\$ / { n++; cur = dir "/" n; print substr($0, 3) > (cur ".cmd"); printf "" > (cur ".exp"); next }
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
        echo "FAIL man example: $(cat "$cmd")"
        diff "$base.exp" "$base.out" | head -10
    fi
done
echo "man examples: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
