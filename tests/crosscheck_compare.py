#!/usr/bin/python3
"""Cross-checks `tshape diff --values` (ts_array_compare) against NumPy on
generated pairs of arrays of every NumPy dtype tshape decodes (bool,
int8..64, uint8..64, float16/32/64, complex64/128), both byte orders, C and
Fortran order, and mixed dtypes (float32 against float64, int32 against
float16, int64 against uint64, float64 against complex64), with NaN, +-Inf
and differences around the tolerances mixed in. A is a folder of .npy
files; B is the same arrays changed, as a deflated .npz and as a stored
.npz (so both ways through the library run: in place, and in pieces with
zlib); each pair is compared both ways round and with several tolerances.
When torch is installed, a torch.save checkpoint of views (transposes,
slices with offsets and steps, channels_last) of every dtype torch saves is
compared with an .npz of the views' changed values.

Reference, per pair, on x = a.astype(float64), y = b.astype(float64)
(complex128 when either is complex):
  notclose   (~np.isclose(x, y, rtol, atol, equal_nan)).sum(), exact (as
             NumPy 2 computes it; see isclose() below)
  first      the C-order index of the first of them (np.argwhere), exact
  max_abs    np.max(np.abs(x - y)), 0 where x == y and, with equal_nan,
             where both are NaN: NaN when another pair has a NaN (np.max
             propagates it); 0 when there are no elements. Exact.
  max_rel    np.max of the same divided by |y| (0 where it is 0), inf where
             y is 0 (NumPy's division) or infinite (tshape's deliberate
             difference: NumPy's inf / inf is a NaN neither value holds).
             Exact.
  nan_a, nan_b  np.isnan counts, exact
Integer and bool pairs are compared exactly in Python integers instead
(close iff a == b or |a - b| <= atol + rtol * float(|b|)), as tshape does:
NumPy's float64 rounding of int64 beyond 2^53 is what tshape avoids.

Usage: crosscheck_compare.py TSHAPE
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(2613)
INTS = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]
FLOATS = ["f2", "f4", "f8"]
COMPLEX = ["c8", "c16"]
TOLERANCES = [[], ["--rtol", "1e-3", "--atol", "1e-6"], ["--equal-nan"],
              ["--rtol", "0", "--atol", "0"], ["--rtol", "0.5", "--atol", "2", "--equal-nan"]]


def sample(code, shape):
    n = int(np.prod(shape))
    dt = np.dtype(code)
    if dt.kind == "b":
        return RNG.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = RNG.integers(info.min, info.max, n, dtype=np.int64 if dt.kind == "i" else np.uint64,
                         endpoint=True).astype(dt)
        a[:3] = [info.min, info.max, 0][:min(3, n)]
        return a.reshape(shape)
    if dt.kind == "f":
        a = (RNG.standard_normal(n) * 100).astype(dt)
        return a.reshape(shape)
    a = (RNG.standard_normal(n) * 10 + 1j * RNG.standard_normal(n) * 10).astype(dt)
    return a.reshape(shape)


def perturb(a):
    """A changed copy of a: about a fifth of the elements moved by amounts
    around the default tolerances and beyond; floats also get NaN and Inf
    on one or both sides (a gets some too, in place)."""
    b = a.copy()
    flat_a, flat_b = a.reshape(-1, order="A"), b.reshape(-1, order="A")
    n = flat_b.size
    if n == 0:
        return b
    idx = RNG.choice(n, size=max(1, n // 5), replace=False)
    kind = a.dtype.kind
    if kind == "b":
        flat_b[idx] = ~flat_b[idx]
        return b
    if kind in "iu":
        info = np.iinfo(a.dtype)
        for i in idx:
            v = int(flat_b[i]) + int(RNG.choice([-1, 1, 2, -3, 100, 10**12]))
            flat_b[i] = min(max(v, info.min), info.max)
        return b
    factors = np.array([0, 1e-9, 1e-7, 3e-6, 9e-6, 2e-5, 1e-3, 0.3, 1.0])
    for i in idx:
        f = RNG.choice(factors)
        with np.errstate(over="ignore", invalid="ignore"):
            flat_b[i] = flat_b[i] + flat_b[i] * f + RNG.choice([0, 1e-9, 1e-8, 5e-7])
    specials = RNG.choice(n, size=min(n, 8), replace=False)
    nan = complex(np.nan, 0) if kind == "c" else np.nan
    inf = complex(np.inf, 0) if kind == "c" else np.inf
    for j, i in enumerate(specials):
        if j == 0:
            flat_a[i] = flat_b[i] = nan
        elif j == 1:
            flat_b[i] = nan
        elif j == 2:
            flat_a[i] = nan
        elif j == 3:
            flat_a[i] = flat_b[i] = inf
        elif j == 4:
            flat_a[i], flat_b[i] = -inf, inf
        elif j == 5:
            flat_b[i] = inf
        elif j == 6:
            flat_a[i] = 0
            flat_b[i] = 0
        elif j == 7:
            flat_a[i] = inf
    return b


def pairs():
    """name -> (a, b): every dtype, byte order and order, and mixed dtypes."""
    out = {}
    for code in ["b1"] + INTS + FLOATS + COMPLEX:
        orders = "<>" if np.dtype(code).itemsize > 1 and code != "b1" else "|"
        for bo in orders:
            for order in "CF":
                shape = (23, 17) if order == "C" else (7, 3, 11)
                a = sample(code, shape)
                b = perturb(a)
                dt = np.dtype(code).newbyteorder(bo) if bo != "|" else np.dtype(code)
                a, b = a.astype(dt), b.astype(dt)
                if order == "F":
                    a, b = np.asfortranarray(a), np.asfortranarray(b)
                out["%s_%s_%s" % (code, {"<": "le", ">": "be", "|": "na"}[bo], order)] = (a, b)
    base = sample("f8", (13, 11))
    changed = perturb(base)
    out["mix_f4_f8"] = (base.astype("<f4"), changed.astype(">f8"))
    out["mix_f8_c8"] = (base, changed.astype("<c8"))
    ints = sample("i4", (50,))
    out["mix_i4_f2"] = (ints % 1000, (perturb(ints) % 1000).astype("<f2"))
    big = sample("i8", (40,))
    out["mix_i8_u8"] = (big, np.abs(perturb(big).astype(object)).astype("<u8"))
    out["mix_b1_u1"] = (sample("b1", (30,)), sample("u1", (30,)) % 2)
    f = (RNG.standard_normal(1_200_001) * 3).astype("<f4")
    out["f4_big"] = (f, perturb(f))
    out["empty"] = (np.zeros((0, 4), "<f4"), np.zeros((0, 4), "<f4"))
    out["scalar"] = (np.array(7, ">i4"), np.array(8, "<i4"))
    return out


def isclose(x, y, rtol, atol, equal_nan):
    """numpy.isclose as NumPy 2 computes it (numpy/_core/numeric.py):
    NumPy 1.x first multiplies by ones_like(...), which turns a complex
    infinity into inf+nanj, so that inf+0j is not close to itself; tshape
    follows the NumPy 2 rule, written out here so the reference does not
    depend on the installed version. For real values both agree (checked)."""
    result = (np.abs(x - y) <= atol + rtol * np.abs(y)) & np.isfinite(y) | (x == y)
    if equal_nan:
        result |= np.isnan(x) & np.isnan(y)
    return result


def is_int_kind(a):
    return a.dtype.kind in "biu"


def expected(a, b, rtol, atol, equal_nan):
    """The reference record for the pair, or None when the pair is equal
    in dtype and all values close (no record)."""
    n = a.size
    if is_int_kind(a) and is_int_kind(b):
        xs = [int(v) for v in a.ravel(order="C")]
        ys = [int(v) for v in b.ravel(order="C")]
        close = [x == y or abs(x - y) <= atol + rtol * float(abs(y)) for x, y in zip(xs, ys)]
        notclose = [i for i, c in enumerate(close) if not c]
        ds = [abs(x - y) for x, y in zip(xs, ys)]
        max_abs = float(max(ds)) if ds else 0.0
        rel = [0.0 if d == 0 else float(d) / float(abs(y)) if y != 0 else float("inf")
               for d, y in zip(ds, ys)]
        max_rel = max(rel) if rel else 0.0
        nan_a = nan_b = 0
        how = "int"
    else:
        cplx = a.dtype.kind == "c" or b.dtype.kind == "c"
        t = np.complex128 if cplx else np.float64
        x = a.astype(t).ravel(order="C")
        y = b.astype(t).ravel(order="C")
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            close = isclose(x, y, rtol, atol, equal_nan)
            if not cplx and not (close == np.isclose(x, y, rtol=rtol, atol=atol,
                                                     equal_nan=equal_nan)).all():
                raise AssertionError("isclose() differs from np.isclose on real values")
            notclose = list(np.flatnonzero(~close))
            d = np.abs(x - y)
            d[x == y] = 0
            if equal_nan:
                d[np.isnan(x) & np.isnan(y)] = 0
            max_abs = float(d.max()) if d.size else 0.0
            ay = np.abs(y)
            rel = np.zeros_like(d)
            nz = d != 0  # NaN too
            rel[nz] = d[nz] / ay[nz]
            rel[nz & ~np.isnan(d) & ((ay == 0) | np.isinf(ay))] = np.inf
            max_rel = float(rel.max()) if rel.size else 0.0
        nan_a, nan_b = int(np.isnan(x).sum()), int(np.isnan(y).sum())
        how = "complex128" if cplx else "float64"
    same_dtype = a.dtype.newbyteorder("=") == b.dtype.newbyteorder("=")
    if same_dtype and not notclose:
        return None
    first = None
    if notclose:
        first = [int(i) for i in np.unravel_index(int(notclose[0]), a.shape)] if a.shape else []
    return {"compared_as": how, "count": n, "notclose": len(notclose), "first": first,
            "max_abs": max_abs, "max_rel": max_rel, "nan_a": nan_a, "nan_b": nan_b}


def num(v):
    return float(v) if isinstance(v, str) else v


def same_number(g, e):
    g = num(g)
    return g == e or (g != g and e != e)


def run(tool, a_path, b_path, extra, refs, label):
    """refs: name -> (a, b) as A and B hold them. Returns the mismatches."""
    args = [tool, "--json", "diff", "--values"] + extra + [a_path, b_path]
    out = subprocess.run(args, capture_output=True, text=True)
    bad = 0
    rtol, atol, equal_nan = 1e-5, 1e-8, "--equal-nan" in extra
    if "--rtol" in extra:
        rtol = float(extra[extra.index("--rtol") + 1])
    if "--atol" in extra:
        atol = float(extra[extra.index("--atol") + 1])
    got = {}
    for line in out.stdout.splitlines():
        rec = json.loads(line)
        if "kind" in rec:
            got[rec["name"]] = rec
    exp_records = 0
    for name, (a, b) in refs.items():
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            e = expected(a, b, rtol, atol, equal_nan)
        g = got.pop(name, None)
        if e is None:
            if g is not None:
                print("MISMATCH %s %s: a record, expected none: %s" % (label, name, g))
                bad += 1
            continue
        exp_records += 1
        if g is None or g.get("values") is None:
            print("MISMATCH %s %s: no values record, expected %s" % (label, name, e))
            bad += 1
            continue
        v = g["values"]
        diffs = [k for k in e if not (same_number(v[k], e[k]) if k.startswith("max")
                                      else v[k] == e[k])]
        if diffs:
            print("MISMATCH %s %s: %s" % (label, name, "; ".join(
                "%s %r, NumPy %r" % (k, v[k], e[k]) for k in diffs)))
            bad += 1
    for name, g in got.items():
        print("MISMATCH %s %s: unexpected record %s" % (label, name, g))
        bad += 1
    want_rc = 1 if exp_records else 0
    if out.returncode != want_rc:
        print("MISMATCH %s: exit %d, expected %d: %s" % (label, out.returncode, want_rc,
                                                        out.stderr.strip()))
        bad += 1
    return bad


def torch_pair(tmp):
    """A torch.save checkpoint of views of every dtype torch saves, and an
    .npz of their changed values; {name: (view as numpy, changed)}. Empty
    without torch."""
    try:
        import torch
    except ImportError:
        return None, None, {}
    g = torch.Generator().manual_seed(29)
    base = torch.randn(6, 7, 8, generator=g, dtype=torch.float64) * 50
    views, refs = {}, {}
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
               torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool]:
        shared = base.to(dt) if dt != torch.bool else base > 0
        tag = str(dt).split(".")[1]
        for vname, v in [("transpose", shared.transpose(0, 2)),
                         ("slice", shared[1:5, ::2, 3:7]),
                         ("permute", shared.permute(2, 0, 1)[1:, 2:, :5]),
                         ("row", shared[3, 2])]:
            views["%s_%s" % (tag, vname)] = v
    views["cl"] = torch.randn(2, 3, 4, 5, generator=g).to(memory_format=torch.channels_last)
    pt = os.path.join(tmp, "views.pt")
    torch.save(views, pt)
    npz = os.path.join(tmp, "views.npz")
    arrays = {}
    for k, v in views.items():
        a = (v.float() if v.dtype == torch.bfloat16 else v).numpy()
        # perturb() puts NaN and Inf into its argument too: give it a copy,
        # so the checkpoint's side keeps the view's own values
        b = perturb(np.ascontiguousarray(a).copy())
        arrays[k] = b
        refs[k] = (a, b)
    np.savez_compressed(npz, **arrays)
    return pt, npz, refs


def main():
    tool = sys.argv[1]
    data = pairs()
    bad = runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "A")
        os.mkdir(folder)
        for name, (a, _) in data.items():
            np.save(os.path.join(folder, name + ".npy"), a)
        deflated = os.path.join(tmp, "B_deflated.npz")
        stored = os.path.join(tmp, "B_stored.npz")
        np.savez_compressed(deflated, **{k: b for k, (_, b) in data.items()})
        np.savez(stored, **{k: b for k, (_, b) in data.items()})
        swapped = {k: (b, a) for k, (a, b) in data.items()}
        for extra in TOLERANCES:
            for a_path, b_path, refs, label in [
                    (folder, deflated, data, "A-deflated"),
                    (deflated, folder, swapped, "deflated-A"),
                    (folder, stored, data, "A-stored"),
                    (stored, deflated, data, "stored-deflated")]:
                if label == "stored-deflated":
                    refs = {k: (b, b) for k, (_, b) in data.items()}
                runs += 1
                bad += run(tool, a_path, b_path, extra, refs, "%s %s" % (label, " ".join(extra)))
        pt, npz, refs = torch_pair(tmp)
        if pt:
            for extra in TOLERANCES:
                runs += 1
                bad += run(tool, pt, npz, extra, refs, "views.pt-npz %s" % " ".join(extra))
    print("crosscheck_compare: %d pairs (+%d torch views) in %d runs agree with NumPy %s, "
          "%d mismatches" % (len(data), len(refs), runs, np.__version__, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
