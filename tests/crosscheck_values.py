#!/usr/bin/python3
"""Cross-checks the values API (ts_array_stats, ts_array_read, through the
tests/tsvalues.c driver) against NumPy on generated files of every NumPy
dtype tshape decodes (bool, int8..64, uint8..64, float16/32/64,
complex64/128), both byte orders, C and Fortran order, as .npy, stored .npz
and deflated .npz, with NaN, +-Inf, zeros and subnormals mixed in; and, when
torch is installed, torch.save checkpoints of views (transposes, slices with
storage offsets and steps, channels_last) of every dtype torch saves,
bfloat16 included, against the views' own values.

Reference, per array, on b = a.astype(float64) (complex: |a| in complex128,
NaN where a part is NaN):
  count, zeros, nan, posinf, neginf, finite, bool true count: exact
  min, max, absmax: np.nanmin / np.nanmax, exact; integers exact as ints
  mean, std of the finite values (std with ddof 0): within 1e-12 of the
      scale of the data (mean: of mean(|x|); std: of std), integers' mean
      against the exact rational mean
Every element read back in flat C order must equal NumPy's a.flat exactly.

Usage: crosscheck_values.py TSVALUES
"""
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

RNG = np.random.default_rng(2026)
INTS = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]
FLOATS = ["f2", "f4", "f8"]
COMPLEX = ["c8", "c16"]


def sample(code, shape):
    n = int(np.prod(shape))
    dt = np.dtype(code)
    if dt.kind == "b":
        return RNG.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = max(info.min, -2**62) if dt.itemsize == 8 else info.min
        hi = min(info.max, 2**62) if dt.itemsize == 8 else info.max
        a = RNG.integers(lo, hi, n, dtype=np.int64 if dt.kind == "i" else np.uint64,
                         endpoint=True)
        a = a.astype(dt)
        a[:3] = [info.min, info.max, 0][:min(3, n)]
        return a.reshape(shape)
    if dt.kind == "f":
        scale = {2: 100.0, 4: 1e6, 8: 1e12}[dt.itemsize]
        a = (RNG.standard_normal(n) * scale + scale / 7).astype(dt)
        special = [np.nan, np.inf, -np.inf, 0.0, -0.0, np.finfo(dt).tiny / 4]
        if dt.itemsize < 8:
            # float64's own extremes would overflow any float64 sum: only
            # half and single extremes, which a double sum holds exactly.
            special += [np.finfo(dt).max, -np.finfo(dt).max]
        idx = RNG.choice(n, size=min(n, len(special)), replace=False)
        for i, v in zip(idx, special):
            a[i] = v
        return a.reshape(shape)
    re = RNG.standard_normal(n) * 10
    im = RNG.standard_normal(n) * 10
    a = (re + 1j * im).astype(dt)
    for i, v in enumerate([complex(np.nan, 1), complex(2, np.inf), 0j, complex(-np.inf, 0)]):
        if i < n:
            a[n - 1 - i] = v
    return a.reshape(shape)


def arrays():
    """name -> array, every dtype, byte order and order."""
    out = {}
    for code in ["b1"] + INTS + FLOATS + COMPLEX:
        orders = "<>" if np.dtype(code).itemsize > 1 and code != "b1" else "|"
        for bo in orders:
            for order in "CF":
                shape = (37, 53) if order == "C" else (29, 3, 11)
                a = sample(code, shape)
                a = a.astype(np.dtype(code).newbyteorder(bo) if bo != "|" else code)
                if order == "F":
                    a = np.asfortranarray(a)
                name = "%s_%s_%s" % (code, {"<": "le", ">": "be", "|": "na"}[bo], order)
                out[name] = a
    out["f4_big"] = (RNG.standard_normal(1_500_001) * 3 + 1000).astype("<f4")
    out["f8_offset"] = (RNG.standard_normal(300_000) + 1e9).astype("<f8")
    out["empty"] = np.zeros((0, 4), dtype="<f4")
    out["scalar"] = np.array(7, dtype=">i4")
    return out


def expected(a):
    e = {"count": int(a.size)}
    if a.dtype.kind == "c":
        c = a.astype(np.complex128).ravel()
        b = np.abs(c)
        b[np.isnan(c.real) | np.isnan(c.imag)] = np.nan
    else:
        b = a.astype(np.float64).ravel()
    e["nan"] = int(np.isnan(b).sum())
    e["posinf"] = int((b == np.inf).sum())
    e["neginf"] = int((b == -np.inf).sum())
    e["zeros"] = int((b == 0).sum())
    fin = b[np.isfinite(b)]
    e["finite"] = int(fin.size)
    e["true"] = int(a.sum()) if a.dtype.kind == "b" else 0
    if a.dtype.kind in "iub":
        vals = [int(x) for x in a.ravel()]
        e["min"], e["max"] = (min(vals), max(vals)) if vals else (None, None)
        e["mean_exact"] = Fraction(sum(vals), len(vals)) if vals else None
    else:
        ok = b[~np.isnan(b)]
        e["min"] = float(ok.min()) if ok.size else None
        e["max"] = float(ok.max()) if ok.size else None
    e["absmax"] = float(np.abs(b[~np.isnan(b)]).max()) if (~np.isnan(b)).any() else None
    e["mean"] = float(fin.mean()) if fin.size else None
    e["std"] = float(fin.std()) if fin.size else None
    e["scale"] = float(np.abs(fin).mean()) if fin.size else 0.0
    return e


def num(v):
    if isinstance(v, str):
        return float(v)
    return v


def close(g, ref, scale):
    """g within 1e-12 of scale from ref; a non-finite ref must be matched."""
    if not np.isfinite(ref) or not np.isfinite(scale):
        return g == ref or (np.isnan(g) and np.isnan(ref))
    return abs(g - ref) <= 1e-12 * max(scale, 1e-300)


def compare(label, e, got):
    bad = []
    for k in ("count", "nan", "posinf", "neginf", "zeros", "finite", "true"):
        if got[k] != e[k]:
            bad.append("%s %r != %r" % (k, got[k], e[k]))
    for k in ("min", "max", "absmax"):
        g = num(got[k])
        if e[k] is None:
            if not (isinstance(g, float) and np.isnan(g)):
                bad.append("%s %r, expected NaN" % (k, g))
        elif g != e[k]:
            bad.append("%s %r != %r" % (k, g, e[k]))
    gm, gs = num(got["mean"]), num(got["std"])
    if e["mean"] is None:
        if not (np.isnan(gm) and np.isnan(gs)):
            bad.append("mean/std %r %r, expected NaN" % (gm, gs))
    else:
        ref = float(e["mean_exact"]) if e.get("mean_exact") is not None else e["mean"]
        if not close(gm, ref, e["scale"]):
            bad.append("mean %r vs %r" % (gm, ref))
        if not close(gs, e["std"], e["std"]):
            bad.append("std %r vs %r" % (gs, e["std"]))
    if bad:
        print("MISMATCH %s: %s" % (label, "; ".join(bad)))
    return not bad


def check_values(tool, path, name, a):
    kind = a.dtype.kind
    as_ = {"b": "i8", "i": "i8", "u": "u8", "f": "f8", "c": "c16"}[kind]
    out = subprocess.run([tool, "dump", path, name, as_], capture_output=True, text=True)
    if out.returncode != 0:
        print("MISMATCH %s %s: dump failed: %s" % (path, name, out.stderr.strip()))
        return False
    lines = out.stdout.split("\n")[:-1]
    flat = a.ravel(order="C")
    if len(lines) != flat.size:
        print("MISMATCH %s %s: %d values, expected %d" % (path, name, len(lines), flat.size))
        return False
    for i, (line, x) in enumerate(zip(lines, flat)):
        if kind == "c":
            re, im = (float(t) for t in line.split())
            ok = all((u == v) or (np.isnan(u) and np.isnan(v))
                     for u, v in ((re, float(x.real)), (im, float(x.imag))))
        elif kind == "f":
            g = float(line)
            ok = g == float(x) or (np.isnan(g) and np.isnan(x))
        else:
            ok = int(line) == int(x)
        if not ok:
            print("MISMATCH %s %s[%d]: %s, NumPy %r" % (path, name, i, line, x))
            return False
    return True


def torch_files(tmp):
    """PyTorch checkpoints whose tensors are views of shared storages:
    transposes, slices with storage offsets and steps, channels_last, every
    dtype torch saves; {path: {name: numpy array of the view}}. Empty when
    /usr/bin/python3 has no torch."""
    try:
        import torch
    except ImportError:
        return {}
    g = torch.Generator().manual_seed(13)
    base = torch.randn(6, 7, 8, generator=g, dtype=torch.float64) * 50
    views = {
        "transpose": base.transpose(0, 2),
        "slice": base[1:5, ::2, 3:7],
        "permute": base.permute(2, 0, 1)[1:, 2:, :5],
        "row": base[3, 2],
        "strided1d": base.reshape(-1)[5::7],
        "cl": torch.randn(2, 3, 4, 5, generator=g).to(memory_format=torch.channels_last),
    }
    out = {}
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
               torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool]:
        d = {k: (v.to(dt) if dt != torch.bool else v > 0) for k, v in views.items()}
        # views of one storage per dtype, not copies: cast first, then view
        shared = (base.to(dt) if dt != torch.bool else base > 0)
        d["transpose"] = shared.transpose(0, 2)
        d["slice"] = shared[1:5, ::2, 3:7]
        d["row"] = shared[3, 2]
        path = os.path.join(tmp, "torch_%s.pt" % str(dt).split(".")[1])
        torch.save(d, path)
        out[path] = {k: (v.float() if dt == torch.bfloat16 else v).numpy() for k, v in d.items()}
    return out


def main():
    tool = sys.argv[1]
    data = arrays()
    cases = mismatches = values = 0
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, a in data.items():
            p = os.path.join(tmp, name + ".npy")
            np.save(p, a)
            files[p] = {"": (name, a)}
        stored = os.path.join(tmp, "stored.npz")
        deflated = os.path.join(tmp, "deflated.npz")
        small = {k: v for k, v in data.items() if v.size < 100000}
        np.savez(stored, **small)
        np.savez_compressed(deflated, **data)
        files[stored] = {k: (k, v) for k, v in small.items()}
        files[deflated] = {k: (k, v) for k, v in data.items()}
        for path, views in torch_files(tmp).items():
            files[path] = {k: (k, v) for k, v in views.items()}
        for path, members in files.items():
            out = subprocess.run([tool, "stats", path], capture_output=True, text=True)
            if out.returncode != 0:
                print("MISMATCH %s: tsvalues failed: %s%s" % (path, out.stdout, out.stderr))
                mismatches += 1
                continue
            for line in out.stdout.splitlines():
                got = json.loads(line)
                label, a = members[got["name"]]
                cases += 1
                with np.errstate(over="ignore", invalid="ignore"):
                    e = expected(a)
                if not compare("%s %s" % (os.path.basename(path), label), e, got):
                    mismatches += 1
                if a.size < 100000 or path.endswith(".npy"):
                    values += a.size
                    if not check_values(tool, path, got["name"], a):
                        mismatches += 1
    print("crosscheck_values: %d arrays (stats) and %d elements (values) in %d files agree "
          "with NumPy %s, %d mismatches" % (cases, values, len(files), np.__version__,
                                            mismatches))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
