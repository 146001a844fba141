# issue 20 item 3: two files of one array each are compared with each
# other, whatever their names, as cmp a b or np.allclose(np.load(a),
# np.load(b)) would (two .npy files are named after their files, so every
# such pair used to be "only in A / only in B" and --values never ran).
# The pair is named "A_NAME => B_NAME".
d=$(mktemp -d) || exit 2
/usr/bin/python3 -c '
import sys, numpy as np
np.save(sys.argv[1] + "/a.npy", np.array([1, 2, 3, 4], np.float32))
np.save(sys.argv[1] + "/b.npy", np.array([1, 2, 3.5, 4], np.float32))
np.save(sys.argv[1] + "/c.npy", np.array([1, 2, 3, 4], np.float32))
np.save(sys.argv[1] + "/d.npy", np.array([1, 2, 3], np.float64))
np.savez(sys.argv[1] + "/two.npz", x=np.zeros(2), y=np.zeros(2))
' "$d" || exit 2
cd "$d" || exit 2
tshape diff a.npy c.npy; echo "exit $?"
tshape diff --values a.npy b.npy; echo "exit $?"
tshape diff a.npy d.npy; echo "exit $?"
tshape --json diff --values a.npy b.npy | head -1
tshape diff --filter x a.npy two.npz; echo "exit $?"
tshape diff a.npy two.npz; echo "exit $?"
rc=$?; cd / && rm -rf "$d"; exit 0
