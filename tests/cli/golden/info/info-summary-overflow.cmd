# issue 9 defect 5: --summary totals never wrap. Two '|S0' arrays of 2^62
# elements (itemsize 0, so the files are 128 bytes) sum to 2^63, one past
# INT64_MAX: the total says "overflow" (JSON: null and "overflow":true).
d=$(mktemp -d) && cd "$d" || exit 2
h="{'descr': '|S0', 'fortran_order': False, 'shape': (4611686018427387904,), }"
printf '\223NUMPY\001\000\166\000%-117s\n' "$h" > a.npy && cp a.npy b.npy
tshape info --summary a.npy b.npy; tshape info --json --summary a.npy b.npy; tshape info --summary a.npy
rc=$?; cd / && rm -rf "$d"; exit $rc
