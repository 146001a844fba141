# issue 20 items 1 and 2: NumPy's rules for the maxima. Where B is 0 the
# relative difference is inf (abs(a-b)/abs(b)), not 0; a pair with a NaN
# makes max abs diff and max rel diff nan (np.max propagates it), and the
# text line names the NaN counts, so an all-NaN tensor (a diverged model)
# does not read "max abs diff 0".
d=$(mktemp -d) || exit 2
/usr/bin/python3 -c '
import sys, numpy as np
np.savez(sys.argv[1] + "/a.npz", zero=np.array([0.5, 0, 2], np.float32),
         nan=np.array([np.nan, np.nan], np.float32), i=np.array([3, 0], np.int32))
np.savez(sys.argv[1] + "/b.npz", zero=np.array([0, 0, 2], np.float32),
         nan=np.array([np.nan, np.nan], np.float32), i=np.array([0, 0], np.int32))
' "$d" || exit 2
tshape diff --values "$d/a.npz" "$d/b.npz"; echo "exit $?"
tshape diff --values --equal-nan "$d/a.npz" "$d/b.npz"; echo "exit $?"
tshape --json diff --values "$d/a.npz" "$d/b.npz" | cut -c1-400 | grep -o '"values":{[^}]*}'
rm -rf "$d"; exit 0
