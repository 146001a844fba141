#!/usr/bin/python3
"""Cross-check `tshape einsum` against numpy.einsum on random cases.

Generates seeded random einsum problems -- implicit and explicit output,
repeated labels (diagonals), ellipses, size-1 broadcasting, zero dims, and
broken specs (bad characters, stray dots, wrong operand or label counts,
unknown or repeated output labels) -- evaluates each with numpy.einsum on
small np.zeros operands, runs all of them through ONE `tshape --json einsum`
process (stdin lines "SPEC SHAPE SHAPE..."), and compares: the same output
shape, or an error on both sides.

Known NumPy quirk, counted separately and not a failure: with one operand
and no summed label, NumPy returns a view (get_single_op_view) that only
compares repeated-label dims when the first one is non-zero, so
einsum('ii->i', zeros((0,4))) returns shape (4,) over a 0-element array.
tshape reports the mismatch as an error.

Usage: crosscheck_einsum.py [--tshape PATH] [--cases N] [--seed S]
Exit 0 when everything agrees, 1 otherwise. Needs /usr/bin/python3 + numpy.
"""
import argparse
import json
import random
import subprocess
import sys

import numpy as np

LOWER = "abcdefg"
UPPER = "AB"


def shape_text(shape):
    if len(shape) == 1:
        return "(%d,)" % shape[0]
    return "(" + ",".join(str(d) for d in shape) + ")"


def gen_case(rng):
    """Returns (spec, shapes) for one random problem."""
    alphabet = LOWER + UPPER
    nops = rng.choice([1, 1, 2, 2, 2, 3])
    size = {c: rng.choice([1, 2, 3, 3, 4, 0] if rng.random() < 0.15 else [1, 2, 3, 4])
            for c in alphabet}
    ell_dims = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 3))]
    terms, shapes = [], []
    pool = rng.sample(alphabet, rng.randint(1, 5))
    for _ in range(nops):
        nl = rng.randint(0, 4)
        labels = [rng.choice(pool) for _ in range(nl)]
        ell = rng.random() < 0.3
        shape = []
        for c in labels:
            r = rng.random()
            if r < 0.12:
                shape.append(1)                      # broadcast against others
            elif r < 0.17:
                shape.append(rng.randint(0, 5))      # maybe a mismatch
            else:
                shape.append(size[c])
        term = "".join(labels)
        if ell:
            pos = rng.randint(0, nl)
            k = rng.randint(0, len(ell_dims))
            mine = ell_dims[len(ell_dims) - k:]
            mine = [1 if rng.random() < 0.2 else d for d in mine]
            if rng.random() < 0.05:
                mine = mine + [rng.randint(2, 5)]    # may clash
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + mine + shape[pos:]
        r = rng.random()
        if r < 0.03 and shape:
            shape = shape[:-1]                       # too few dims
        elif r < 0.06:
            shape = shape + [2]                      # too many dims
        terms.append(term)
        shapes.append(shape)
    spec = ",".join(terms)
    r = rng.random()
    if r < 0.45:
        if spec == "":
            spec = "->"
    else:
        seen = sorted(set("".join(terms).replace(".", "")))
        out = rng.sample(seen, rng.randint(0, len(seen)))
        if rng.random() < 0.06:
            out.append(rng.choice(alphabet))         # maybe not in any input
        if rng.random() < 0.04 and out:
            out.append(out[0])                       # repeated output label
        outs = "".join(out)
        if any("..." in t for t in terms) and rng.random() < 0.85 or rng.random() < 0.05:
            pos = rng.randint(0, len(outs))
            outs = outs[:pos] + "..." + outs[pos:]
        spec = spec + "->" + outs
    r = rng.random()
    if r < 0.02:
        i = rng.randint(0, len(spec))
        spec = spec[:i] + rng.choice("1.*>-_,") + spec[i:]     # broken syntax
    elif r < 0.04:
        if rng.random() < 0.5:
            shapes = shapes + [[2]]                  # more operands than terms
        elif len(shapes) > 1:
            shapes = shapes[:-1]                     # fewer operands
    if spec == "" or " " in spec:
        spec = "->"
    return spec, shapes


def numpy_result(spec, shapes):
    try:
        ops = [np.zeros(s) for s in shapes]
        return list(np.einsum(spec, *ops).shape)
    except (ValueError, TypeError):
        return None


def single_op_view_quirk(spec, shapes, np_shape):
    """True for NumPy's zero-dim diagonal view (see the module doc)."""
    if np_shape is None or len(shapes) != 1 or "->" not in spec:
        return False
    labels = spec.split("->")[0].replace(".", "")
    return len(set(labels)) < len(labels) and 0 in shapes[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tshape", default="build/tshape")
    ap.add_argument("--cases", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20240607)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    cases = [gen_case(rng) for _ in range(args.cases)]
    lines = [spec + " " + " ".join(shape_text(s) for s in shapes) if shapes else spec
             for spec, shapes in cases]
    proc = subprocess.run([args.tshape, "--json", "einsum"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True)
    outs = proc.stdout.splitlines()
    if len(outs) != len(cases):
        print("crosscheck_einsum: expected %d output lines, got %d (exit %d): %s"
              % (len(cases), len(outs), proc.returncode, proc.stderr[:500]))
        return 1
    fails = quirks = ok_cases = err_cases = 0
    for (spec, shapes), line, out in zip(cases, lines, outs):
        ours = json.loads(out)
        want = numpy_result(spec, shapes) if shapes else None
        if ours == want:
            if want is None:
                err_cases += 1
            else:
                ok_cases += 1
            continue
        if ours is None and single_op_view_quirk(spec, shapes, want):
            quirks += 1
            continue
        fails += 1
        if fails <= 20:
            print("MISMATCH %s: numpy %s, tshape %s" % (line, want, ours))
    print("crosscheck_einsum: %d cases (%d shapes, %d errors agree, %d NumPy zero-dim "
          "diagonal quirks), %d mismatches"
          % (len(cases), ok_cases, err_cases, quirks, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
