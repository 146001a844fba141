# Text from files and arguments is escaped in human output and messages:
# tabs (no extra --summary column), line separators (U+2028, U+0085), bidi
# controls (U+202E), backslashes; JSON escapes them as \uXXXX.
d=$(mktemp -d) && cd "$d" || exit 2
h="{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
printf '\223NUMPY\001\000\166\000%-117s\n' "$h" > base && printf '\0\0\0\0\0\0\0\0' >> base
for n in "$(printf 'tab\there.npy')" "$(printf 'rlo\342\200\256gpj.npy')" "$(printf 'ls\342\200\250nel\302\205.npy')" 'back\slash.npy'; do cp base "$n"; done
rm base
tshape info --summary *.npy | cut -f1,4
tshape info --json --summary *.npy
tshape info "$(printf 'no\342\200\256such\nfile')" "$(printf 'tab\there.npy')" | head -2
tshape size "$(printf '(2,\342\200\250)')"
rc=$?; cd / && rm -rf "$d"; exit $rc
