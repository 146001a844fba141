#!/bin/sh
# stream.sh [N] - N (default 1,000,000) random shapes through `tshape size` and
# `tshape flat2d`, against the Python one-liner a user would write
# (ast.literal_eval + math.prod) and `wc -l` (the I/O floor), on the same
# file. Prints median-of-3 wall times and ratios.
# Goals (issue 2): >= 100x faster than Python, within 10x of wc -l; exits 1
# when one is missed.
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${1:-1000000}
tshape=${TSHAPE:-build/tshape}
py=/usr/bin/python3
mkdir -p bench/data
f=bench/data/shapes-$n.txt
if [ ! -f "$f" ]; then
    # Deterministic shapes of 1..6 dims, dims 1..512, mixed spellings.
    awk -v n="$n" 'BEGIN { srand(42); for (i = 0; i < n; i++) {
        k = 1 + int(rand() * 6); s = "(";
        for (j = 0; j < k; j++) s = s (j ? ", " : "") (1 + int(rand() * 512));
        print s (k == 1 ? ",)" : ")") } }' > "$f"
fi
echo "input: $f ($(wc -l < "$f") lines, $(wc -c < "$f") bytes)"
wc_t=$(median_of 3 wc -l "$f")
size_t=$(median_of 3 sh -c "$tshape size < $f")
flat_t=$(median_of 3 sh -c "$tshape flat2d < $f")
py_size_t=$(median_of 1 sh -c "$py -c 'import sys, ast, math
for l in sys.stdin: print(math.prod(ast.literal_eval(l)))' < $f")
py_flat_t=$(median_of 1 sh -c "$py -c 'import sys, ast, math
for l in sys.stdin:
    s = ast.literal_eval(l); print((math.prod(s[:-1]), s[-1]))' < $f")
# The outputs must agree before the times mean anything (on the first 1000
# lines: a pipe into head would stop Python with a BrokenPipeError).
head -1000 "$f" | "$tshape" size > bench/data/t.out
head -1000 "$f" | $py -c 'import sys, ast, math
for l in sys.stdin: print(math.prod(ast.literal_eval(l)))' > bench/data/p.out
cmp -s bench/data/t.out bench/data/p.out || { echo "tshape size and Python disagree" >&2; exit 1; }
printf '%-28s %9s s\n' "wc -l" "$wc_t"
printf '%-28s %9s s  %6sx faster than Python, %5sx wc -l\n' "tshape size" "$size_t" \
    "$(ratio "$py_size_t" "$size_t")" "$(ratio "$size_t" "$wc_t")"
printf '%-28s %9s s  %6sx faster than Python, %5sx wc -l\n' "tshape flat2d" "$flat_t" \
    "$(ratio "$py_flat_t" "$flat_t")" "$(ratio "$flat_t" "$wc_t")"
printf '%-28s %9s s\n' "python size (literal_eval)" "$py_size_t"
printf '%-28s %9s s\n' "python flat2d" "$py_flat_t"
goal "tshape size: times faster than Python" "$(ratio "$py_size_t" "$size_t")" ">=" 100
goal "tshape flat2d: times faster than Python" "$(ratio "$py_flat_t" "$flat_t")" ">=" 100
goal "tshape size: time / wc -l's" "$(ratio2 "$size_t" "$wc_t")" "<=" 10
goal "tshape flat2d: time / wc -l's" "$(ratio2 "$flat_t" "$wc_t")" "<=" 10
goals_done
