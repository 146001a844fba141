# issue 20 item 10: stats --summary names at most the first five arrays
# with a non-finite value, then "and N more" (a diverged model made a
# line of 6,000 characters); --json still lists them all.
d=$(mktemp -d) || exit 2
/usr/bin/python3 -c '
import sys, numpy as np
np.savez(sys.argv[1] + "/nan.npz", **{"layer%02d" % i: np.array([np.nan if i % 2 == 0 else 1.0, np.inf], np.float32) for i in range(12)})
np.savez(sys.argv[1] + "/few.npz", a=np.array([np.nan], np.float32), b=np.ones(2, np.float32))
' "$d" || exit 2
tshape stats --summary "$d/nan.npz" | sed "s|$d/||g"
tshape stats --summary "$d/few.npz" | sed "s|$d/||g"
tshape --json stats --summary "$d/nan.npz" | grep -o '"nonfinite":.*'
rm -rf "$d"; exit 0
