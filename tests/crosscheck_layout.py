#!/usr/bin/python3
"""crosscheck_layout.py - compares tshape's layout commands with NumPy.

Generates random cases (seeded, so every run checks the same cases) for
reshape (NumPy -1 rule), broadcast, transpose, squeeze, expand (expand_dims),
moveaxis, strides (C/F, several dtypes, bytes and elements), C/F contiguity
of random strided views, ravel (ravel_multi_index, all modes and orders, per
axis modes) and unravel (unravel_index). NumPy computes each answer or
raises; tshape runs in batch (stdin mode, --json, one output line per input
line, "null" for an error) and must agree EXACTLY: the same value, or both
fail.

Usage: /usr/bin/python3 tests/crosscheck_layout.py [--tshape PATH] [--seed N]
Exit status 0 when everything agrees, 1 on a mismatch (the first ones are
printed), 2 when tshape misbehaves (wrong number of output lines).

Not covered here because NumPy has no counterpart: MXNet reshape codes,
flatten (PyTorch), channels_last and view (PyTorch); the Check suites test
those against the documented examples.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys

import numpy as np

RNG = random.Random()


def tup(dims):
    """A shape in tshape's syntax, e.g. (2,3), (4,), ()."""
    dims = list(dims)
    return "(" + ",".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def rand_shape(max_ndim=5, max_dim=5, zero_p=0.08):
    nd = RNG.randint(0, max_ndim)
    return tuple(0 if RNG.random() < zero_p else RNG.randint(1, max_dim) for _ in range(nd))


def numpy_answer(fn):
    """fn() or None when NumPy raises."""
    try:
        return fn()
    except (ValueError, IndexError, TypeError):  # AxisError is both
        return None


class Checker:
    def __init__(self, tshape):
        self.tshape = tshape
        self.counts = {}
        self.failures = []

    def batch(self, op, args, lines, expected):
        """Runs `tshape --json ARGS` on the lines; compares with expected
        (a JSON-like value, or None when NumPy failed)."""
        assert len(lines) == len(expected)
        if not lines:
            return
        proc = subprocess.run([self.tshape, "--json"] + args, input="\n".join(lines) + "\n",
                              capture_output=True, text=True)
        out = proc.stdout.split("\n")
        if out and out[-1] == "":
            out.pop()
        if len(out) != len(lines):
            print("numpy-layout: tshape %s printed %d lines for %d inputs; stderr:\n%s"
                  % (" ".join(args), len(out), len(lines), proc.stderr[:2000]))
            sys.exit(2)
        if proc.returncode not in (0, 1, 2):
            print("numpy-layout: tshape %s exited %d" % (" ".join(args), proc.returncode))
            sys.exit(2)
        for line, got_text, want in zip(lines, out, expected):
            got = json.loads(got_text)
            self.counts[op] = self.counts.get(op, 0) + 1
            if got != want:
                self.failures.append("%s %s: input %r: tshape %s, NumPy %s"
                                     % (op, " ".join(args), line, got_text,
                                        "error" if want is None else json.dumps(want)))


def check_reshape(c):
    for _ in range(160):
        # A target with 0 or 1 unknowns (NumPy treats any negative as unknown;
        # tshape accepts only -1, so only -1 is generated).
        nt = RNG.randint(0, 4)
        target = [RNG.choice([0, 1, 2, 3, 4, 6]) if RNG.random() < 0.9 else 0 for _ in range(nt)]
        unknowns = RNG.choice([0, 1, 1, 1, 2]) if nt else 0
        for k in RNG.sample(range(nt), min(unknowns, nt)):
            target[k] = -1
        lines, want = [], []
        known = 1
        for t in target:
            if t >= 0:
                known *= t
        for _ in range(15):
            r = RNG.random()
            if r < 0.5 and known > 0:
                # a shape whose size fits: known x (a multiple when there is a -1)
                size = known * (RNG.randint(0, 5) if -1 in target else 1)
                shape, rest = [], size
                for _ in range(RNG.randint(0, 3)):
                    d = RNG.choice([x for x in range(1, 7) if rest % x == 0] or [1])
                    shape.append(d)
                    rest //= d
                shape.append(rest)
                RNG.shuffle(shape)
                shape = tuple(shape)
            else:
                shape = rand_shape(4, 6)
            a = np.empty(shape, dtype=np.int8)
            res = numpy_answer(lambda: list(a.reshape(tuple(target)).shape))
            lines.append(tup(shape))
            want.append(res)
        c.batch("reshape", ["reshape", tup(target)], lines, want)


def check_broadcast(c):
    lines, want = [], []
    for _ in range(1500):
        n = RNG.randint(1, 4)
        base = rand_shape(4, 4)
        shapes = []
        for _ in range(n):
            # derive from a common base so most cases broadcast
            s = list(base[RNG.randint(0, len(base)):]) if base else []
            s = [1 if RNG.random() < 0.35 else d for d in s]
            if RNG.random() < 0.15 and s:
                s[RNG.randrange(len(s))] = RNG.randint(0, 4)
            if RNG.random() < 0.2:
                s = [RNG.randint(1, 3)] + s
            shapes.append(tuple(s))
        res = numpy_answer(lambda: list(np.broadcast_shapes(*shapes)))
        lines.append(" ".join(tup(s) for s in shapes))
        want.append(res)
    c.batch("broadcast", ["broadcast"], lines, want)


def view_of(shape):
    """A zero-copy array of any small shape."""
    return np.broadcast_to(np.int8(0), shape)


def rand_axes(nd, count, valid_p=0.85):
    """count axes for ndim nd, mostly valid, negatives included."""
    axes = []
    for _ in range(count):
        if nd > 0 and RNG.random() < valid_p:
            a = RNG.randrange(nd)
            axes.append(a - nd if RNG.random() < 0.4 else a)
        else:
            axes.append(RNG.randint(-nd - 2, nd + 2))
    return axes


def check_transpose(c):
    for nd in range(0, 6):
        for _ in range(25):
            if RNG.random() < 0.8:
                perm = list(range(nd))
                RNG.shuffle(perm)
                perm = [p - nd if RNG.random() < 0.3 else p for p in perm]
                if RNG.random() < 0.15 and nd:
                    perm[RNG.randrange(nd)] = RNG.randint(-nd - 1, nd)
            else:
                perm = rand_axes(nd, RNG.randint(0, nd + 1))
            lines, want = [], []
            for _ in range(6):
                shape = tuple(RNG.randint(0, 4) for _ in range(nd if RNG.random() < 0.85
                                                                  else RNG.randint(0, 5)))
                res = numpy_answer(lambda: list(np.transpose(view_of(shape), perm).shape))
                lines.append(tup(shape))
                want.append(res)
            c.batch("transpose", ["transpose", "--axes=" + tup(perm)], lines, want)
    # no axes: reverse
    shapes = [rand_shape(6, 4) for _ in range(200)]
    want = [list(np.transpose(view_of(s)).shape) for s in shapes]
    c.batch("transpose", ["transpose"], [tup(s) for s in shapes], want)


def shape_for_squeeze(nd):
    return tuple(1 if RNG.random() < 0.5 else RNG.randint(0, 4) for _ in range(nd))


def check_squeeze(c):
    shapes = [shape_for_squeeze(RNG.randint(0, 6)) for _ in range(300)]
    want = [list(np.squeeze(view_of(s)).shape) for s in shapes]
    c.batch("squeeze", ["squeeze"], [tup(s) for s in shapes], want)
    for _ in range(70):
        nd = RNG.randint(0, 5)
        axes = rand_axes(nd, RNG.randint(0, min(nd, 3) + (RNG.random() < 0.1)))
        lines, want = [], []
        for _ in range(8):
            shape = shape_for_squeeze(nd if RNG.random() < 0.85 else RNG.randint(0, 5))
            res = numpy_answer(lambda: list(np.squeeze(view_of(shape), axis=tuple(axes)).shape))
            lines.append(tup(shape))
            want.append(res)
        c.batch("squeeze", ["squeeze", "--axis=" + tup(axes)], lines, want)


def check_expand(c):
    for _ in range(80):
        count = RNG.randint(0, 3)
        nd_guess = RNG.randint(0, 4)
        axes = rand_axes(nd_guess + count, count)
        lines, want = [], []
        for _ in range(8):
            shape = rand_shape(4, 4)
            res = numpy_answer(lambda: list(np.expand_dims(view_of(shape), tuple(axes)).shape))
            lines.append(tup(shape))
            want.append(res)
        c.batch("expand", ["expand", tup(axes)], lines, want)


def check_moveaxis(c):
    for _ in range(80):
        nd = RNG.randint(0, 5)
        n = RNG.randint(0, min(nd, 3)) if nd else 0
        src = rand_axes(nd, n)
        dst = rand_axes(nd, n)
        lines, want = [], []
        for _ in range(8):
            shape = tuple(RNG.randint(0, 4) for _ in range(nd if RNG.random() < 0.85
                                                              else RNG.randint(0, 5)))
            res = numpy_answer(lambda: list(np.moveaxis(view_of(shape), src, dst).shape))
            lines.append(tup(shape))
            want.append(res)
        c.batch("moveaxis", ["moveaxis", tup(src), tup(dst)], lines, want)


DTYPES = [("float64", "float64"), ("f4", "float32"), ("<i8", "int64"), ("int16", "int16"),
          ("uint8", "uint8"), ("bool", "bool"), ("complex128", "complex128"),
          ("0", "float32"), ("c8", "complex64")]


def check_strides(c):
    for spelling, npname in DTYPES:
        for order in "CF":
            shapes = [rand_shape(5, 5) for _ in range(60)]
            want = [list(np.empty(s, dtype=npname, order=order).strides) for s in shapes]
            c.batch("strides", ["strides", "--dtype=" + spelling, "--order=" + order],
                    [tup(s) for s in shapes], want)
    for order in "CF":
        shapes = [rand_shape(5, 5) for _ in range(60)]
        want = [[st // 8 for st in np.empty(s, order=order).strides] for s in shapes]
        c.batch("strides", ["strides", "--elements", "--order=" + order],
                [tup(s) for s in shapes], want)


def rand_strides(shape, itemsize):
    nd = len(shape)
    kind = RNG.random()
    if kind < 0.5:
        order = RNG.choice("CF")
        st = list(np.empty(shape, dtype="V%d" % itemsize, order=order).strides)
        # NumPy's own strides of an empty array are 0; make them
        # contiguous-looking instead, then perturb size-1 dims or one stride
        acc = itemsize
        idx = range(nd - 1, -1, -1) if order == "C" else range(nd)
        for i in idx:
            st[i] = acc
            acc *= max(shape[i], 1)
        for i in range(nd):
            if shape[i] == 1 and RNG.random() < 0.5:
                st[i] = RNG.randint(-3, 50) * itemsize
        if RNG.random() < 0.3 and nd:
            i = RNG.randrange(nd)
            st[i] += RNG.choice([-1, 1]) * itemsize
        return st
    if kind < 0.8:
        return [RNG.randint(-3, 12) * itemsize for _ in range(nd)]
    return [RNG.randint(-30, 100) for _ in range(nd)]


def check_contiguous(c):
    for npname, itemsize in [("int8", 1), ("int16", 2), ("int32", 4), ("float64", 8)]:
        base = np.zeros(1, dtype=npname)
        lines, want = [], []
        for _ in range(400):
            shape = rand_shape(5, 4, zero_p=0.05)
            strides = rand_strides(shape, itemsize)
            a = np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)
            lines.append(tup(shape) + " " + tup(strides))
            want.append([bool(a.flags.c_contiguous), bool(a.flags.f_contiguous)])
        # compare the two NumPy flags of the object tshape prints
        got = run_json(c, ["contiguous", "--dtype=" + npname], lines)
        for line, g, w in zip(lines, got, want):
            c.counts["contiguous"] = c.counts.get("contiguous", 0) + 1
            gg = None if g is None else [g["c_contiguous"], g["f_contiguous"]]
            if gg != w:
                c.failures.append("contiguous --dtype=%s: input %r: tshape %s, NumPy %s"
                                  % (npname, line, json.dumps(g), json.dumps(w)))


def run_json(c, args, lines):
    proc = subprocess.run([c.tshape, "--json"] + args, input="\n".join(lines) + "\n",
                          capture_output=True, text=True)
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        print("numpy-layout: tshape %s printed %d lines for %d inputs; stderr:\n%s"
              % (" ".join(args), len(out), len(lines), proc.stderr[:2000]))
        sys.exit(2)
    return [json.loads(x) for x in out]


def rand_index(shape):
    n = len(shape)
    if RNG.random() < 0.05:
        n = max(0, n + RNG.choice([-1, 1]))
    idx = []
    for i in range(n):
        d = shape[i] if i < len(shape) else 3
        idx.append(RNG.randint(-2 * d - 2, 2 * d + 2) if RNG.random() < 0.35
                   else RNG.randint(0, max(d - 1, 0)))
    return idx


def check_ravel(c):
    for order in "CF":
        for mode in ["raise", "wrap", "clip"]:
            lines, want = [], []
            for _ in range(200):
                shape = rand_shape(4, 5, zero_p=0.04)
                idx = rand_index(shape)
                res = numpy_answer(lambda: int(np.ravel_multi_index(
                    tuple(idx), shape, mode=mode, order=order)))
                lines.append(tup(shape) + " " + tup(idx))
                want.append(res)
            c.batch("ravel", ["ravel", "--order=" + order, "--mode=" + mode], lines, want)
    for _ in range(20):
        nd = RNG.randint(1, 3)
        modes = [RNG.choice(["raise", "wrap", "clip"]) for _ in range(nd)]
        order = RNG.choice("CF")
        lines, want = [], []
        for _ in range(20):
            shape = tuple(RNG.randint(1, 5) for _ in range(nd))
            idx = rand_index(shape)
            res = numpy_answer(lambda: int(np.ravel_multi_index(
                tuple(idx), shape, mode=tuple(modes), order=order)))
            lines.append(tup(shape) + " " + tup(idx))
            want.append(res)
        c.batch("ravel", ["ravel", "--order=" + order, "--mode=" + ",".join(modes)],
                lines, want)


def check_unravel(c):
    for order in "CF":
        lines, want = [], []
        for _ in range(500):
            shape = rand_shape(4, 5, zero_p=0.04)
            size = int(np.prod(shape, dtype=np.int64))
            flat = RNG.randint(-3, size + 3) if RNG.random() < 0.3 else RNG.randint(0, max(size - 1, 0))
            res = numpy_answer(lambda: [int(x) for x in np.unravel_index(flat, shape, order=order)])
            lines.append(tup(shape) + " " + str(flat))
            want.append(res)
        c.batch("unravel", ["unravel", "--order=" + order], lines, want)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tshape", default=os.environ.get("TSHAPE") or shutil.which("tshape"))
    ap.add_argument("--seed", type=int, default=20260607)
    opt = ap.parse_args()
    if not opt.tshape:
        print("numpy-layout: no tshape binary (give --tshape or put it on PATH)")
        return 2
    RNG.seed(opt.seed)
    c = Checker(opt.tshape)
    for fn in (check_reshape, check_broadcast, check_transpose, check_squeeze, check_expand,
               check_moveaxis, check_strides, check_contiguous, check_ravel, check_unravel):
        fn(c)
    total = sum(c.counts.values())
    detail = ", ".join("%s %d" % kv for kv in c.counts.items())
    if c.failures:
        print("numpy-layout: %d of %d cases disagree with NumPy %s:"
              % (len(c.failures), total, np.__version__))
        for f in c.failures[:25]:
            print("  " + f)
        return 1
    print("numpy-layout: %d cases agree with NumPy %s (%s)" % (total, np.__version__, detail))
    return 0


if __name__ == "__main__":
    sys.exit(main())
