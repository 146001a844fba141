#!/usr/bin/python3
"""Cross-checks `tshape show` against NumPy's str(a) (print(a)) and
`tshape show --json` against a.tolist(), on generated .npy files: every
NumPy dtype tshape decodes (bool, ints, float16/32/64, complex64/128), both
byte orders, C and Fortran order, shapes from 0-d to 4-d, values that make
NumPy choose positional or scientific notation, NaN and Inf, arrays past
the summarisation threshold, and --index, --edgeitems, --threshold.

The text must equal NumPy's exactly; the JSON values must equal tolist()'s
(NaN and Inf as the strings "nan", "inf", "-inf"; floats once rounded to the
array's precision, as tshape writes the shortest digits of that precision).

Usage: crosscheck_show.py TSHAPE
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng(75)


def values(code, n):
    dt = np.dtype(code)
    if dt.kind == "b":
        return RNG.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        span = [10, 1000, int(info.max)][int(RNG.integers(0, 3))]
        lo = 0 if dt.kind == "u" else -span
        return RNG.integers(max(lo, info.min), min(span, info.max), n, endpoint=True,
                            dtype=np.uint64 if dt.kind == "u" else np.int64).astype(dt)
    scale = [1.0, 1e-6, 1e9, 100.0, 0.01][int(RNG.integers(0, 5))]
    if dt.kind == "f":
        with np.errstate(over="ignore"):  # float16 * 1e9: inf, on purpose
            a = (RNG.standard_normal(n) * scale).astype(dt)
        if RNG.random() < 0.3:
            a = np.round(a).astype(dt)
    else:
        with np.errstate(over="ignore"):
            a = (RNG.standard_normal(n) * scale + 1j * RNG.standard_normal(n) * scale).astype(dt)
    if dt.kind in "fc" and n > 3 and RNG.random() < 0.3:
        a[RNG.integers(0, n)] = np.nan
        a[RNG.integers(0, n)] = np.inf
    return a


def cases():
    codes = ["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]
    shapes = [(), (1,), (5,), (17,), (3, 4), (2, 3, 4), (40, 30), (2, 3, 2, 2), (1100,),
              (0,), (3, 0), (7, 200)]
    k = 0
    for code in codes:
        for shape in shapes:
            n = int(np.prod(shape)) if shape else 1
            a = values(code, n).reshape(shape)
            bo = RNG.choice(["<", ">"]) if np.dtype(code).itemsize > 1 else "|"
            if bo != "|":
                a = a.astype(np.dtype(code).newbyteorder(bo))
            if len(shape) > 1 and RNG.random() < 0.5:
                a = np.asfortranarray(a)
            k += 1
            yield "a%03d_%s" % (k, code), a


def expect_text(a, opts):
    kw = {}
    if "edgeitems" in opts:
        kw["edgeitems"] = opts["edgeitems"]
    if "threshold" in opts:
        kw["threshold"] = opts["threshold"]
    sub = a[tuple(opts["index"])] if "index" in opts else a
    with np.printoptions(**kw):
        return str(sub)


def json_value(x):
    if isinstance(x, list):
        return [json_value(v) for v in x]
    if isinstance(x, complex):
        return [json_value(x.real), json_value(x.imag)]
    if isinstance(x, float):
        if x != x:
            return "nan"
        if x in (float("inf"), float("-inf")):
            return "inf" if x > 0 else "-inf"
    return x


def main():
    tshape = sys.argv[1]
    checked = mismatches = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, a in cases():
            path = os.path.join(tmp, name + ".npy")
            np.save(path, a)
            variants = [{}]
            if a.ndim >= 1 and a.shape[0] > 1:
                variants.append({"index": [int(RNG.integers(-a.shape[0], a.shape[0]))]})
            if a.size > 20:
                variants.append({"edgeitems": 2, "threshold": 20})
            for opts in variants:
                args = [tshape, "show", path]
                if "index" in opts:
                    args += ["--index", ",".join(map(str, opts["index"]))]
                if "edgeitems" in opts:
                    args += ["--edgeitems", str(opts["edgeitems"]), "--threshold",
                             str(opts["threshold"])]
                out = subprocess.run(args, capture_output=True, text=True)
                want = expect_text(a, opts)
                checked += 1
                if out.returncode != 0 or out.stdout != want + "\n":
                    mismatches += 1
                    print("MISMATCH %s %s (%s %s):\nNumPy:\n%s\ntshape (exit %d):\n%s%s" %
                          (name, opts, a.dtype.str, a.shape, want, out.returncode, out.stdout,
                           out.stderr))
            out = subprocess.run([tshape, "--json", "show", path], capture_output=True, text=True)
            checked += 1
            # Floats are compared as values: tshape writes the shortest digits of the
            # array's own precision, tolist() those of the float64 they widen to.
            got = json.loads(out.stdout) if out.returncode == 0 else None
            want = json_value(a.tolist())
            if a.dtype.kind in "fc" and got is not None and a.size > 0:
                g = np.array(json.loads(out.stdout.replace('"nan"', "NaN")
                                        .replace('"-inf"', "-Infinity")
                                        .replace('"inf"', "Infinity")), dtype=np.float64)
                w = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                if a.dtype.kind == "c":
                    w = np.stack([w.real, w.imag], axis=-1)
                # the digits are the shortest of the array's own precision: they
                # give the value back once rounded to it
                ft = {"f2": np.float16, "f4": np.float32, "c8": np.float32}.get(
                    a.dtype.str[1:], np.float64)
                g = g.astype(ft).astype(np.float64)
                same = g.shape == w.shape and np.array_equal(g, w, equal_nan=True)
            else:
                same = got == want
            if not same:
                mismatches += 1
                print("MISMATCH %s --json (%s %s): %s" % (name, a.dtype.str, a.shape,
                                                          out.stdout[:300] + out.stderr))
    print("crosscheck_show: %d cases (text and JSON) agree with NumPy %s, %d mismatches" %
          (checked, np.__version__, mismatches))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
