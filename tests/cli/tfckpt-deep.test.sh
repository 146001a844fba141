#!/bin/sh
# tfckpt-deep.test.sh - `tshape verify --deep` checks the CRC-32C of every
# tensor of a TensorFlow checkpoint against its index entry, also when a
# tensor spans several of the deep pass's 8 MiB steps read by different
# threads (their CRC-32Cs joined with ts__crc32c_combine): a 20 MiB float32
# tensor written by tests/fixtures/gen_tfckpt.py's bundle() verifies, the
# same with one byte changed in its last step is corrupt and named (the
# pass runs on every core: on one core the steps are joined all the same).
# Exit 0 pass, 77 skip (no /usr/bin/python3 with numpy), 1 fail.
set -u
note() { echo "tfckpt-deep.test.sh: $*" >&2; }
command -v tshape >/dev/null 2>&1 || { note "no tshape on PATH"; exit 1; }
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { note "no python3-numpy, skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" <<'PY' || { note "cannot write the checkpoint"; exit 1; }
import os, sys
sys.path.insert(0, "tests/fixtures")
import numpy as np
import gen_tfckpt as g
big = (np.arange(5 << 20, dtype="<u4") * 2654435761 % 65521).astype("<f4").tobytes()
g.bundle(os.path.join(sys.argv[1], "ok"), [("big", "float32", [5 << 20], big, 0),
                                           ("small", "int32", [3], g.arr("int32", 3), 0)])
g.bundle(os.path.join(sys.argv[1], "bad"), [("big", "float32", [5 << 20], big, 0),
                                            ("small", "int32", [3], g.arr("int32", 3), 0)])
p = os.path.join(sys.argv[1], "bad", "model.ckpt.data-00000-of-00001")
raw = bytearray(open(p, "rb").read())
raw[(5 << 22) - 3] ^= 1
open(p, "wb").write(raw)
PY
fail=0
for t in 1; do
    out=$(tshape verify --deep "$tmp/ok/model.ckpt" 2>&1); rc=$?
    case $rc:$out in
        "0:$tmp/ok/model.ckpt: complete and consistent: 1 file, 2 tensors, 20971532 bytes (20.0 MiB); 1 file without a length of its own; data read: 20971532 bytes, 2 CRC-32s checked") ;;
        *) note "FAIL good checkpoint,: exit $rc: $out"; fail=1;;
    esac
    out=$(tshape verify --deep "$tmp/bad/model.ckpt" 2>&1); rc=$?
    case $rc:$out in
        "1:crc: '$tmp/bad/model.ckpt.index': tensor 'big' (20971520 bytes at byte 0 of model.ckpt.data-00000-of-00001) has CRC-32C "*", its index entry says "*"(TensorFlow refuses it: checksum does not match)"*) ;;
        *) note "FAIL changed byte,: exit $rc: $out"; fail=1;;
    esac
done
[ $fail = 0 ] && note "ok: a 20 MiB tensor's CRC-32C over 3 steps, good and changed"
exit $fail
