#!/usr/bin/python3
"""crosscheck_id.py TSHAPE - `tshape id --listing` and `tshape id` against
the fingerprint as include/tshape.h defines it, computed here with NumPy
and torch (Debian's python3-numpy and python3-torch) from the files
themselves: one line "LEN:NAME DTYPE [DIMS]" per tensor, sorted by name,
and with --values the SHA-256 of the tensor's elements in C order,
little-endian (np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<'))
.tobytes(); torch: .contiguous() of a view, bfloat16 as its 16 bits). The
files: Fortran-order, big-endian and deflated NumPy arrays, npz members,
torch.save views of one storage and channels_last tensors. Exit 0 pass,
1 fail, 77 skipped (no NumPy)."""
import hashlib
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("crosscheck_id: no NumPy, skipped")
    sys.exit(77)

TSHAPE = sys.argv[1]
NPY = ["tests/fixtures/values/%s" % f for f in
       ("f4.npy", "f4_be.npy", "f8_fortran.npy", "i2_be_fortran.npy", "u8_be.npy", "c8.npy",
        "c16_be.npy", "b1.npy", "i1_2d.npy", "scalar.npy", "empty.npy", "f2.npy")] + \
      ["tests/fixtures/npy/%s" % f for f in ("f_order_3d.npy", "c_order_3d.npy", "be_f8.npy")]
NPZ = ["tests/fixtures/values/deflated.npz", "tests/fixtures/values/stored.npz",
       "examples/checkpoint.npz", "tests/fixtures/verify/trailing.npz"]
TORCH = ["tests/fixtures/pytorch/channels_last.pt", "tests/fixtures/pytorch/hf_tied.bin",
         "tests/fixtures/verify/bin/pytorch_model-00001-of-00002.bin",
         "tests/fixtures/verify/nonfinite.pt"]


def line(name, dtype, shape, data=None):
    b = name.encode()
    s = "%d:%s %s [%s]" % (len(b), name, dtype, ",".join(str(d) for d in shape))
    if data is not None:
        s += " " + hashlib.sha256(data).hexdigest()
    return s


def np_lines(arrays, values):
    out = []
    for name, a in arrays:
        data = None
        if values:
            data = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()
        out.append((name, line(name, a.dtype.name, a.shape, data)))
    return out


def torch_lines(sd, values):
    import torch
    out = []
    for name, t in sd.items():
        if not isinstance(t, torch.Tensor):
            continue
        data = None
        if values:
            c = t.contiguous()
            if c.dtype == torch.bfloat16:
                data = c.view(torch.int16).numpy().astype("<i2").tobytes()
            else:
                data = np.ascontiguousarray(c.numpy()).astype(
                    c.numpy().dtype.newbyteorder("<")).tobytes()
        out.append((name, line(name, str(t.dtype).replace("torch.", ""), tuple(t.shape), data)))
    return out


def tshape(args):
    p = subprocess.run([TSHAPE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def main():
    fails = checks = 0
    cases = []
    for f in NPY:
        name = f.rsplit("/", 1)[1][:-4]
        cases.append((f, lambda v, f=f, name=name: np_lines([(name, np.load(f))], v)))
    for f in NPZ:
        cases.append((f, lambda v, f=f: np_lines(sorted(np.load(f).items()), v)))
    try:
        import torch
        for f in TORCH:
            cases.append((f, lambda v, f=f: torch_lines(torch.load(f), v)))
    except ImportError:
        print("crosscheck_id: no torch: the .pt files are not checked")
    for path, ref in cases:
        for values in (0, 1):
            want = [s for _, s in sorted(ref(values))]
            args = ["id", "--listing"] + (["--values"] if values else []) + [path]
            rc, out, err = tshape(args)
            checks += 1
            if rc != 0 or out.splitlines() != want:
                fails += 1
                print("FAIL %s:\n  tshape (%d): %r %s\n  reference: %r" % (
                    " ".join(args), rc, out.splitlines()[:3], err.strip(), want[:3]))
                continue
            rc, out, err = tshape(["id"] + (["--values"] if values else []) + [path])
            digest = hashlib.sha256("".join(s + "\n" for s in want).encode()).hexdigest()
            checks += 1
            if rc != 0 or out != "%s  %s\n" % (digest, path):
                fails += 1
                print("FAIL id %s: %r, expected %s" % (path, out, digest))
    print("crosscheck_id: %d checks, %d failed" % (checks, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
