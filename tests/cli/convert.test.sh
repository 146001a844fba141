#!/bin/sh
# slow: NumPy and PyTorch reference readers over every output format
# convert.test.sh - tshape convert (issue 14), checked with readers that are
# not tshape's: NumPy (np.load) for .npz and .npy, a small safetensors reader
# written here (header JSON parsed by Python, bytes wrapped with
# numpy.frombuffer; it also checks the format's rules: contiguous offsets,
# 8-byte aligned data start, nothing after the last tensor), and torch.load
# for PyTorch inputs (that part is skipped when /usr/bin/python3 has no
# torch). Then:
#   (a) numeric .npy/.npz fixtures (big-endian, Fortran order, 0-d, empty,
#       deflated) -> safetensors, npz and npy-dir equal np.load of the input
#   (b) npz -> safetensors -> npz gives back byte-identical arrays, and each
#       member is byte for byte what np.save writes
#   (c) the MXNet ResNet-20 and MLP checkpoints of ../shared/corpus keep all
#       their arrays (names, shapes, values as safetensors and npz agree)
#   (d) a .pt of views, float16 and bfloat16 (tests/fixtures/convert/views.pt,
#       gen_convert.py) -> safetensors equals torch.load bit for bit
#   (e) a file size limit (ulimit -f), a full disk (a small tmpfs, when it
#       can be mounted), a truncated input, an existing OUT,
#       SIGTERM while writing and OUT being IN leave no OUT and no temporary
#       file, exit status 2
# Skipped (77) without /usr/bin/python3 and NumPy.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "convert.test.sh: no $py with NumPy, skipped"; exit 77
fi
: "${TSHAPE:=build/tshape}"
case $TSHAPE in /*) ;; *) TSHAPE=$root/$TSHAPE;; esac
t=$(mktemp -d) || exit 2
trap 'rm -rf "$t"' EXIT
fail=0
say_fail() { echo "FAIL convert.test.sh: $*"; fail=1; }

# ---- the reference readers, shared by every check ---------------------------
cat > "$t/ref.py" <<'EOF'
import io, json, os, struct, sys, zipfile
import numpy as np

ST = {'F64': '<f8', 'F32': '<f4', 'F16': '<f2', 'BF16': '<u2', 'I64': '<i8', 'I32': '<i4',
      'I16': '<i2', 'I8': 'i1', 'U64': '<u8', 'U32': '<u4', 'U16': '<u2', 'U8': 'u1',
      'BOOL': '?', 'C64': '<c8', 'F8_E4M3': 'u1', 'F8_E5M2': 'u1'}

def read_st(path):
    """{name: (dtype string, array)} of a safetensors file, with its rules checked."""
    b = open(path, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    assert (8 + n) % 8 == 0, 'header not padded to 8: %d' % n
    head = b[8:8 + n]
    assert head[:1] == b'{' and head.rstrip(b' ')[-1:] == b'}'
    h = json.loads(head)
    meta = h.pop('__metadata__', {})
    assert meta.get('format') == 'pt', meta
    assert all(isinstance(v, str) for v in meta.values())
    spans = sorted(tuple(v['data_offsets']) for v in h.values())
    pos = 0
    for s, e in spans:
        assert s == pos, 'gap or overlap at %d' % s
        pos = e
    assert 8 + n + pos == len(b), 'trailing bytes'
    assert list(h) == sorted(h), 'keys not sorted'
    out = {}
    for k, v in h.items():
        s, e = v['data_offsets']
        dt = np.dtype(ST[v['dtype']])
        assert s % dt.itemsize == 0, '%s misaligned' % k
        out[k] = (v['dtype'], np.frombuffer(b[8 + n + s:8 + n + e], dtype=dt).reshape(v['shape']))
    return out

def le(a):
    """C-order little-endian copy (0-d stays 0-d): what convert must write."""
    a = np.array(a, order='C')
    return a.astype(a.dtype.newbyteorder('<')) if a.dtype.byteorder == '>' else a

def same(a, b):
    """Same dtype (byte order aside), shape and little-endian C-order bytes."""
    x, y = le(a), le(b)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()

def load_any(path):
    """np.load of a .npy or .npz as {name: array}."""
    r = np.load(path)
    if isinstance(r, np.ndarray):
        return {os.path.splitext(os.path.basename(path))[0]: r}
    return {k: r[k] for k in r.files}
EOF

# Runs PYTHON CODE with the readers; a failing assert fails the test.
check() {
    what=$1; shift
    if ! "$py" - "$@" <<EOF 2>"$t/py.err"
import sys; sys.path.insert(0, "$t")
from ref import *
$PYCODE
EOF
    then say_fail "$what: $(tail -3 "$t/py.err")"; fi
}

# ---- (a) npy/npz fixtures against np.load ------------------------------------
inputs="tests/fixtures/npy/bool.npy tests/fixtures/npy/be_f8.npy tests/fixtures/npy/be_i4.npy
tests/fixtures/npy/c_order_3d.npy tests/fixtures/npy/f_order_3d.npy tests/fixtures/npy/float16.npy
tests/fixtures/npy/int8.npy tests/fixtures/npy/uint64.npy tests/fixtures/npy/complex64.npy
tests/fixtures/npy/scalar.npy tests/fixtures/npy/zero_size.npy tests/fixtures/npy/v2.npy
tests/fixtures/values/i2_be_fortran.npy tests/fixtures/values/u8_be.npy tests/fixtures/values/f4.npy
tests/fixtures/values/deflated.npz tests/fixtures/values/stored.npz tests/fixtures/npy/compressed.npz"
n=0
for f in $inputs; do
    n=$((n + 1))
    "$TSHAPE" convert "$f" "$t/a$n.safetensors" >/dev/null || say_fail "$f -> safetensors"
    "$TSHAPE" convert "$f" "$t/a$n.npz" >/dev/null || say_fail "$f -> npz"
    "$TSHAPE" convert --compress "$f" "$t/a${n}z.npz" >/dev/null || say_fail "$f -> npz -z"
    "$TSHAPE" convert --to npy-dir "$f" "$t/a$n.d" >/dev/null || say_fail "$f -> npy-dir"
    PYCODE='
src = load_any(sys.argv[1])
st = read_st(sys.argv[2])
assert sorted(st) == sorted(src), (sorted(st), sorted(src))
for k, a in src.items():
    assert same(st[k][1], a), k
for path in (sys.argv[3], sys.argv[4]):
    assert zipfile.ZipFile(path).testzip() is None, path + ": a member fails its CRC-32"
    z = load_any(path)
    assert sorted(z) == sorted(src)
    for k, a in src.items():
        assert same(z[k], a), (path, k)
for k, a in src.items():
    assert same(np.load(os.path.join(sys.argv[5], k + ".npy")), a), k
' check "(a) $f" "$f" "$t/a$n.safetensors" "$t/a$n.npz" "$t/a${n}z.npz" "$t/a$n.d"
done

# ---- (b) npz -> safetensors -> npz round trip ----------------------------------
PYCODE='
rng = np.random.default_rng(14)
arrs = {"w": rng.standard_normal((5, 7)).astype(np.float32),
        "h": rng.standard_normal((3, 4)).astype(np.float16),
        "d": rng.standard_normal(9),
        "i": np.arange(-6, 6, dtype=np.int64).reshape(3, 4),
        "u": np.arange(250, 256, dtype=np.uint8),
        "b": np.array([True, False, True]),
        "c": (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex64),
        "f": np.asfortranarray(rng.standard_normal((3, 5)).astype(np.float32)),
        "z": np.zeros((0, 3), dtype=np.int16),
        "s": np.array(7.0, dtype=np.float64),
        "nan": np.array([np.nan, -np.inf, np.inf, -0.0], dtype=np.float32)}
np.savez(sys.argv[1], **arrs)
' check "(b) make" "$t/rt.npz"
"$TSHAPE" convert "$t/rt.npz" "$t/rt.safetensors" >/dev/null || say_fail "(b) npz -> safetensors"
"$TSHAPE" convert "$t/rt.safetensors" "$t/rt2.npz" >/dev/null || say_fail "(b) safetensors -> npz"
PYCODE='
a, b = load_any(sys.argv[1]), load_any(sys.argv[2])
assert sorted(a) == sorted(b)
for k in a:
    x, y = np.array(a[k], order="C"), b[k]
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), k
    ref = io.BytesIO(); np.save(ref, x)
    assert zipfile.ZipFile(sys.argv[2]).read(k + ".npy") == ref.getvalue(), k + ": not np.save bytes"
' check "(b) round trip" "$t/rt.npz" "$t/rt2.npz"

# ---- (c) the MXNet checkpoints of the corpus ------------------------------------
corpus=$root/../shared/corpus/mxnet
if [ -f "$corpus/cifar_resnet20_v1-0000.params" ]; then
    for f in "$corpus/cifar_resnet20_v1-0000.params" "$corpus/d2l_mlp_v3.params"; do
        b=$t/$(basename "$f" .params)
        "$TSHAPE" convert "$f" "$b.safetensors" >/dev/null || say_fail "(c) $f"
        "$TSHAPE" convert "$f" "$b.npz" >/dev/null || say_fail "(c) $f -> npz"
        "$TSHAPE" --json info "$f" > "$b.info"
        PYCODE='
info = [json.loads(l) for l in open(sys.argv[1])]
st, z = read_st(sys.argv[2]), load_any(sys.argv[3])
want = {r["name"]: r["shape"] for r in info}
assert len(want) == len(info) == len(st) == len(z), (len(info), len(st), len(z))
for k, shape in want.items():
    assert list(st[k][1].shape) == shape and st[k][0] == "F32", k
    assert same(st[k][1], z[k]), k
if "resnet20" in sys.argv[2]:
    assert len(st) == 107
' check "(c) $f" "$b.info" "$b.safetensors" "$b.npz"
    done
else
    echo "convert.test.sh: no corpus at $corpus, part (c) skipped"
fi

# ---- (d) PyTorch views, float16, bfloat16 against torch.load -------------------
if "$py" -c 'import torch' 2>/dev/null; then
    pt=tests/fixtures/convert/views.pt
    "$TSHAPE" convert "$pt" "$t/v.safetensors" >/dev/null 2>"$t/v.err" || say_fail "(d) $pt"
    grep -q "5 tensors share storage" "$t/v.err" || say_fail "(d) sharing not reported"
    "$TSHAPE" convert --cast float32 "$pt" "$t/v.npz" >/dev/null 2>&1 || say_fail "(d) $pt -> npz"
    PYCODE='
import torch
sd = torch.load(sys.argv[1])
st, z = read_st(sys.argv[2]), load_any(sys.argv[3])
assert sorted(st) == sorted(sd)
for k, v in sd.items():
    dt, a = st[k]
    if v.dtype == torch.bfloat16:
        assert dt == "BF16"
        ref = v.contiguous().view(torch.int16).numpy().view("<u2")
    else:
        ref = v.contiguous().numpy()
    assert same(a, ref), k
    assert np.array_equal(z[k], v.float().numpy() if v.is_floating_point() and v.dtype != torch.float64 else v.numpy()), k
' check "(d) torch" "$pt" "$t/v.safetensors" "$t/v.npz"
else
    echo "convert.test.sh: no torch in $py, part (d) skipped"
fi

# ---- (e) faults leave nothing ----------------------------------------------------
PYCODE='
import numpy as np
np.savez(sys.argv[1], **{"w%d" % i: np.full((256, 256), i, dtype=np.float32) for i in range(4)})
' check "(e) make" "$t/big.npz"
nothing_left() { # DIR WHAT: DIR holds nothing but what the test put there
    left=$(ls -A "$1")
    [ -z "$left" ] || say_fail "$2: left $left"
}
mkdir "$t/e"
for out in o.safetensors o.npz d; do
    to=; [ $out = d ] && to="--to npy-dir"
    (ulimit -f 100; "$TSHAPE" convert $to "$t/big.npz" "$t/e/$out") >/dev/null 2>"$t/e.err"
    rc=$?
    [ $rc = 2 ] || say_fail "(e) ulimit -f $out: exit $rc"
    grep -q "File too large" "$t/e.err" || say_fail "(e) ulimit -f $out: $(cat "$t/e.err")"
    nothing_left "$t/e" "(e) ulimit -f $out"
done
# A full disk (ENOSPC): a 512 KiB tmpfs for the 1 MiB of data, when this
# process may mount one (root in a container that allows it); else skipped.
mkdir "$t/full"
if mount -t tmpfs -o size=512k tmpfs "$t/full" 2>/dev/null; then
    for out in o.safetensors o.npz d; do
        to=; [ $out = d ] && to="--to npy-dir"
        "$TSHAPE" convert $to "$t/big.npz" "$t/full/$out" >/dev/null 2>"$t/e.err"
        rc=$?
        [ $rc = 2 ] || say_fail "(e) full disk $out: exit $rc"
        grep -q "No space left on device" "$t/e.err" || say_fail "(e) full disk $out: $(cat "$t/e.err")"
        nothing_left "$t/full" "(e) full disk $out"
    done
    umount "$t/full"
else
    echo "convert.test.sh: cannot mount a tmpfs: the full-disk case is skipped"
fi
head -c 300000 "$t/big.npz" > "$t/trunc.npz"
"$TSHAPE" convert "$t/trunc.npz" "$t/e/o.safetensors" >/dev/null 2>&1
[ $? = 2 ] || say_fail "(e) truncated input: exit status"
nothing_left "$t/e" "(e) truncated input"
echo keep > "$t/e/o.safetensors"
"$TSHAPE" convert "$t/big.npz" "$t/e/o.safetensors" >/dev/null 2>&1
[ $? = 2 ] || say_fail "(e) existing OUT: exit status"
[ "$(cat "$t/e/o.safetensors")" = keep ] || say_fail "(e) existing OUT was changed"
[ "$(ls -A "$t/e")" = o.safetensors ] || say_fail "(e) existing OUT: left $(ls -A "$t/e")"
# SIGTERM while writing: nothing left (when the run was not already over)
rm -f "$t/e/o.safetensors"
PYCODE='
np.savez(sys.argv[1], **{"w%d" % i: np.ones((1024, 1024), dtype=np.float64) for i in range(16)})
' check "(e) make large" "$t/large.npz"
# The signal is sent once the output is being written (convert's handler is
# in place before): a file of the folder open in the process (an anonymous
# O_TMPFILE file shows in /proc/PID/fd as "DIR/#N (deleted)") or a named
# temporary in the folder, never after a fixed delay: under ASan on a loaded
# machine 50 ms did not reach the handler. The wait for it is bounded (about
# 10 s); a run that ends first (exit 0) is not a failure, and a signal that
# still arrives before the handler, or after OUT was linked into place whole,
# kills it (status 143): then nothing is left but a whole OUT that reads back.
writing() { # PID: the process has a file of $t/e open, or one is there
    [ -n "$(ls -A "$t/e")" ] || ls -l "/proc/$1/fd" 2>/dev/null | grep -q "$t/e/"
}
for out in o.safetensors o.npz; do
    "$TSHAPE" convert "$t/large.npz" "$t/e/$out" >/dev/null 2>"$t/e.err" &
    pid=$!
    n=0
    while [ $n -lt 1000 ] && ! writing $pid && kill -0 $pid 2>/dev/null; do
        sleep 0.01
        n=$((n + 1))
    done
    kill -TERM $pid 2>/dev/null
    wait $pid
    rc=$?
    case $rc in
    0) rm -f "$t/e/$out" ;;
    143)
        if [ -e "$t/e/$out" ]; then
            "$TSHAPE" info --summary "$t/e/$out" >/dev/null 2>&1 ||
                say_fail "(e) SIGTERM $out: left an unreadable $out"
            rm -f "$t/e/$out"
        fi
        nothing_left "$t/e" "(e) SIGTERM before the handler, $out" ;;
    *)
        [ $rc = 2 ] || say_fail "(e) SIGTERM $out: exit $rc"
        grep -q "interrupted by SIGTERM" "$t/e.err" || say_fail "(e) SIGTERM $out: $(cat "$t/e.err")"
        nothing_left "$t/e" "(e) SIGTERM $out" ;;
    esac
done
# OUT is a member of the model folder IN
mkdir "$t/m" && cp "$t/a1.safetensors" "$t/m/m.safetensors"
"$TSHAPE" convert --force "$t/m" "$t/m/m.safetensors" >/dev/null 2>"$t/e.err"
[ $? = 2 ] || say_fail "(e) OUT in IN: exit status"
grep -q "IN and OUT must differ" "$t/e.err" || say_fail "(e) OUT in IN: $(cat "$t/e.err")"
cmp -s "$t/a1.safetensors" "$t/m/m.safetensors" || say_fail "(e) OUT in IN: IN changed"
[ "$(ls -A "$t/m")" = m.safetensors ] || say_fail "(e) OUT in IN: left $(ls -A "$t/m")"

if [ $fail = 0 ]; then echo "convert.test.sh: all checks passed"; fi
exit $fail
