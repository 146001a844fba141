#!/usr/bin/python3
"""gen_nn_table.py - writes tests/fixtures/nn/cases.tsv, the PyTorch
cross-check table of the layer shape commands (conv, convtranspose, pool,
adaptive pool, linear, matmul, cat, stack, dim), replayed by
tests/cli/torch-nn.test.sh
(which does not need torch).

Run it with Debian's python3 and python3-torch:
    /usr/bin/python3 tests/gen_nn_table.py > tests/fixtures/nn/cases.tsv

Each random configuration is run through torch on zero tensors of the
shape (torch.nn.functional.conv1d/2d/3d, conv_transpose*, max_pool*,
avg_pool*, adaptive_max_pool*, adaptive_avg_pool*, linear, torch.matmul,
torch.cat, torch.stack, Tensor.size), and
the same configuration is written as tshape arguments. Rows, tab-separated:
    op    ARGS (shell words for `tshape ARGS`)    EXPECT    TORCH
EXPECT is tshape's expected standard output (the shape, and for conv and
convtranspose the weight shape torch accepted), or "error" when torch
rejects the configuration. TORCH is "ok" or the first line of torch's
message. Where torch returns an output with an empty spatial dim (its
max_pool1d fast path allows output size 0), EXPECT is "error" and TORCH
says "empty output": tshape rejects empty layer outputs by design.

Configurations tshape deliberately treats differently are not generated
(see README, man page): conv inputs with 0 channels (torch returns 0
channels), padding='same' with a stride above 1 (torch refuses it, tshape
follows ONNX/TensorFlow SAME), 1-D (0,) shapes in cat (torch's legacy skip).
"""
import random
import shlex
import sys
import warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.set_grad_enabled(False)
R = random.Random(20261123)


def shape_text(s):
    s = tuple(s)
    if len(s) == 1:
        return "(%d,)" % s[0]
    return "(" + ",".join(str(d) for d in s) + ")"


def q(s):
    return shlex.quote(s)


def per_axis(n, lo, hi):
    """One value for every axis, or a list of n."""
    if R.random() < 0.5:
        v = R.randint(lo, hi)
        return [v] * n, str(v)
    v = [R.randint(lo, hi) for _ in range(n)]
    return v, q(shape_text(v))


rows = []


def run(op, args, fn, fmt=None, fn1=None):
    """fn1: the same layer on a batch of 1 when the batch is 0: torch checks
    less for an empty batch, so a row torch accepts with batch 0 but rejects
    with batch 1 expects an error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
            if fn1 is not None:
                try:
                    fn1()
                except Exception as e:
                    raise RuntimeError("torch checks less for batch 0; with batch 1: " +
                                       type(e).__name__ + ": " + str(e).strip())
        expect = fmt(r) if fmt else shape_text(r.shape)
        torch_note = "ok"
        if op in ("conv", "convtranspose", "pool") and any(d == 0 for d in r.shape[-N[0]:]):
            expect, torch_note = "error", "empty output " + shape_text(r.shape)
    except Exception as e:  # torch rejects the configuration
        expect = "error"
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if not msg.startswith("torch checks less"):
            msg = type(e).__name__ + ": " + msg
        torch_note = msg.replace("\t", " ")[:200]
    rows.append((op, " ".join(args), expect, torch_note))


N = [2]  # spatial dims of the current layer (for the empty-output rule)


def layer_input(n, cin):
    batched = R.random() < 0.8
    sp = [R.randint(0, 14) if R.random() < 0.03 else R.randint(1, 14 if n < 3 else 9)
          for _ in range(n)]
    shape = ([R.choice([0, 1, 1, 2, 3])] if batched else []) + [cin] + sp
    return shape, batched


def gen_conv(transpose):
    n = R.randint(1, 3)
    N[0] = n
    groups = R.choice([1, 1, 1, 2, 3, 4])
    cin = groups * R.randint(1, 3) if R.random() < 0.9 else R.randint(1, 8)
    cout = groups * R.randint(1, 3) if R.random() < 0.9 else R.randint(1, 8)
    shape, batched = layer_input(n, cin)
    k, ktext = per_axis(n, 1, 5)
    s, stext = per_axis(n, 1, 3)
    d, dtext = per_axis(n, 1, 3)
    if R.random() < 0.03:
        s, stext = [0] * n, "0"
    args = []
    padding = None
    p = [0] * n
    r = R.random()
    if r < 0.1 and not transpose and all(v == 1 for v in s):
        padding = R.choice(["same", "valid"])
        args.append("--padding " + padding)
    elif r < 0.15 and not transpose:
        padding = "valid"
        args.append("--padding valid")
    else:
        p, ptext = per_axis(n, 0, 3)
        if R.random() < 0.03:
            p, ptext = [-1] * n, "-1"
        args.append("--padding " + ptext)
    op = [0] * n
    if transpose and R.random() < 0.5:
        op, optext = per_axis(n, 0, 2)
        args.append("--output-padding " + optext)
    args = ["--kernel " + ktext, "--stride " + stext, "--dilation " + dtext] + args
    args += ["--out-channels %d" % cout, "--groups %d" % groups, "--weight"]
    if not batched:
        args.append("--spatial %d" % n)
    args.append(q(shape_text(shape)))
    m = []

    def make():
        if transpose:
            cls = [torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d]
            m[:] = [cls[n - 1](cin, cout, k, s, p, op, groups, False, d)]
        else:
            cls = [torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d]
            m[:] = [cls[n - 1](cin, cout, k, s, padding if padding else p, d, groups, False)]
        return m[0]

    def fwd(shape):
        x = torch.zeros(shape)
        return lambda: make()(x)

    fn1 = fwd([1] + shape[1:]) if batched and shape[0] == 0 else None
    cmd = "convtranspose" if transpose else "conv"
    run(cmd, [cmd] + args, fwd(shape),
        lambda r: shape_text(r.shape) + " weight " + shape_text(m[0].weight.shape), fn1)


def gen_pool():
    n = R.randint(1, 3)
    N[0] = n
    cin = R.randint(1, 4)
    shape, batched = layer_input(n, cin)
    avg = R.random() < 0.4
    k, ktext = per_axis(n, 1, 5)
    args = ["pool", "--kind " + ("avg" if avg else "max"), "--kernel " + ktext]
    s = None
    if R.random() < 0.7:
        s, stext = per_axis(n, 1, 3)
        if R.random() < 0.03:
            s, stext = [0] * n, "0"
        args.append("--stride " + stext)
    p, ptext = per_axis(n, 0, 3)
    args.append("--padding " + ptext)
    d = [1] * n
    if not avg and R.random() < 0.5:
        d, dtext = per_axis(n, 1, 3)
        args.append("--dilation " + dtext)
    ceil = R.random() < 0.5
    if ceil:
        args.append("--ceil-mode")
    if not batched:
        args.append("--spatial %d" % n)
    args.append(q(shape_text(shape)))
    def fwd(shape):
        x = torch.zeros(shape)
        if avg:
            f = [F.avg_pool1d, F.avg_pool2d, F.avg_pool3d][n - 1]
            return lambda: f(x, k, s if s is not None else k, p, ceil)
        f = [F.max_pool1d, F.max_pool2d, F.max_pool3d][n - 1]
        return lambda: f(x, k, s if s is not None else k, p, d, ceil)

    fn1 = fwd([1] + shape[1:]) if batched and shape[0] == 0 else None
    run("pool", args, fwd(shape), None, fn1)


def small_shape(nd, lo=0):
    return [R.choice([1, 2, 3, 4]) if R.random() > 0.05 else lo for _ in range(nd)]


def gen_linear():
    nd = R.choice([0, 1, 1, 2, 2, 3, 4]) if R.random() > 0.02 else 0
    shape = small_shape(nd, 0)
    fin = shape[-1] if shape and R.random() < 0.8 else R.randint(1, 5)
    fout = R.randint(0, 5)
    args = ["linear", "--out-features %d" % fout, "--in-features %d" % fin, q(shape_text(shape))]
    x = torch.zeros(shape)
    w = torch.zeros(fout, fin)
    run("linear", args, lambda: F.linear(x, w))


def gen_matmul():
    a = small_shape(R.choice([0, 1, 1, 2, 2, 3, 4]) if R.random() > 0.03 else 0)
    b = small_shape(R.choice([1, 1, 2, 2, 3, 4]) if R.random() > 0.03 else 0)
    if len(a) >= 1 and len(b) >= 1 and R.random() < 0.7:  # make the inner dims agree
        k = a[-1]
        if len(b) == 1:
            b[0] = k
        else:
            b[-2] = k
    x, y = torch.zeros(a), torch.zeros(b)
    run("matmul", ["matmul", q(shape_text(a)), q(shape_text(b))], lambda: torch.matmul(x, y))


def gen_cat(stack):
    nd = R.choice([0, 1, 2, 2, 3, 4]) if stack else R.choice([1, 2, 2, 3, 4])
    base = [R.randint(1, 4) for _ in range(nd)]
    count = R.randint(1, 4)
    axis = R.randint(-nd - 1 - stack, nd + stack) if R.random() < 0.2 else \
        R.randint(-nd - stack, nd - 1 + stack) if nd + stack else 0
    shapes = []
    for _ in range(count):
        s = list(base)
        if not stack and nd and R.random() < 0.8:
            s[axis % nd if -nd <= axis < nd else 0] = R.randint(0, 4) if nd > 1 else R.randint(1, 4)
        if R.random() < 0.1 and nd:
            s[R.randrange(nd)] += 1
        if R.random() < 0.05:
            s = s + [1]
        shapes.append(s)
    ts = [torch.zeros(s) for s in shapes]
    op = "stack" if stack else "cat"
    args = [op, str(axis)] + [q(shape_text(s)) for s in shapes]
    run(op, args, (lambda: torch.stack(ts, axis)) if stack else (lambda: torch.cat(ts, axis)))


def gen_dim():
    nd = R.randint(0, 4)
    s = small_shape(nd)
    axis = R.randint(-nd - 1, nd)
    x = torch.zeros(s)
    run("dim", ["dim", str(axis), q(shape_text(s))], lambda: x.size(axis), lambda r: str(r))


def gen_adaptive():
    """pool --output-size: AdaptiveAvgPool/AdaptiveMaxPool 1d/2d/3d, output
    sizes of 1..8 or None (2-d and 3-d); inputs with an empty axis are not
    generated (torch 1.13 pools them into NaN, tshape and torch 2 refuse
    them); one in ten has the wrong ndim for its output size (a list)."""
    n = R.randint(1, 3)
    N[0] = n
    cin = R.randint(1, 4)
    shape, batched = layer_input(n, cin)
    while any(d == 0 for d in shape[1 if batched else 0:]):
        shape, batched = layer_input(n, cin)
    wrong = R.random() < 0.1 and n > 1  # (a list of one says nothing either)
    if wrong:
        shape = shape + [R.randint(1, 5)]
    avg = R.random() < 0.5
    # (torch's 1-d functions take no None)
    osz = [None if n > 1 and R.random() < 0.2 else R.randint(1, 8) for _ in range(n)]
    if n > 1 and R.random() < 0.3 and None not in osz:
        osz = [osz[0]] * n
    # one number: tshape takes the spatial axes from the shape (ndim - 2), so
    # a shape of the wrong ndim gets a list, whose length fixes them
    if not wrong and len(set(map(str, osz))) == 1 and osz[0] is not None and R.random() < 0.5:
        otext = str(osz[0])
    else:
        otext = q("(" + ",".join("None" if o is None else str(o) for o in osz) +
                  ("," if n == 1 else "") + ")")
    args = ["pool", "--kind " + ("avg" if avg else "max"), "--output-size " + otext]
    if not batched:
        args.append("--spatial %d" % n)
    args.append(q(shape_text(shape)))
    x = torch.zeros(shape)
    f = ([F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d] if avg else
         [F.adaptive_max_pool1d, F.adaptive_max_pool2d, F.adaptive_max_pool3d])[n - 1]
    o = osz[0] if n == 1 else tuple(osz)
    run("pool", args, lambda: f(x, o))


GEN = [(gen_conv, (False,), 700), (gen_conv, (True,), 350), (gen_pool, (), 600),
       (gen_linear, (), 150), (gen_matmul, (), 250), (gen_cat, (False,), 150),
       (gen_cat, (True,), 100), (gen_dim, (), 60), (gen_adaptive, (), 200)]


def main():
    for fn, a, count in GEN:
        for _ in range(count):
            fn(*a)
    out = sys.stdout
    out.write("# PyTorch %s cross-check of the layer shape commands: written by\n"
              "# tests/gen_nn_table.py (run with /usr/bin/python3 and python3-torch), read by\n"
              "# tests/cli/torch-nn.test.sh. op, ARGS, EXPECT (stdout, or error), TORCH.\n"
              % torch.__version__)
    for r in rows:
        out.write("\t".join(r) + "\n")
    ok = sum(1 for r in rows if r[2] != "error")
    sys.stderr.write("gen_nn_table.py: %d rows, %d valid, %d rejected by torch\n"
                     % (len(rows), ok, len(rows) - ok))


main()
