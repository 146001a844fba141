#!/usr/bin/python3
"""python.py - the tshape Python module against what Python users run
instead, timed inside one process (import costs left out), median of
ROUNDS interleaved rounds after a warm-up round, page cache warm:

  1. a folder of 1,000 small files (bench/data/many, written by
     bench/model.sh: 500 .npy, 500 .safetensors): tshape.open(folder) and
     every record's name, shape and dtype, against a loop of
     numpy.load(mmap_mode="r") and a json+struct read of each safetensors
     header;
  2. a 400 MB torch.save checkpoint (bench/data/torch_400mb.pt, written by
     bench/pytorch.sh): tshape.open + every record, and tshape.load (every
     array as a NumPy array), against torch.load(f, weights_only=True,
     mmap=True) (mmap needs torch >= 2.1: without it, plain weights_only)
     and its tensors as NumPy arrays;
  3. the same weights as a 400 MB safetensors file: tshape.open and
     tshape.load against safetensors.safe_open-style code (the JSON header
     read with json, each tensor a numpy.memmap).
Prints each time and the ratio (the alternative's time over tshape's).

    PYTHONPATH=python TSHAPE_LIBRARY=build/libtshape.so.0 /usr/bin/python3 bench/python.py
"""
import gc
import inspect
import json
import os
import statistics
import struct
import sys
import time
import warnings

import numpy as np

import tshape

ROUNDS = int(os.environ.get("ROUNDS", "11"))
D = "bench/data"


def median_time(fn, rounds=ROUNDS):
    fn()
    ts = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def row(what, t, ref=None):
    r = "" if ref is None else "  %6.1fx" % (ref / t)
    print("%-66s %9.5f s%s" % (what, t, r))


def tshape_records(path):
    with tshape.open(path) as m:
        return [(a.name, a.shape, a.dtype_name) for a in m]


def tshape_open(path):
    with tshape.open(path) as m:
        return len(m)


def tshape_load(path):
    arrays = tshape.load(path)
    return sum(a.size for a in arrays.values())


def numpy_loop(d):
    out = []
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if n.endswith(".npy"):
            a = np.load(p, mmap_mode="r")
            out.append((n, a.shape, a.dtype))
        elif n.endswith(".safetensors"):
            with open(p, "rb") as f:
                k = struct.unpack("<Q", f.read(8))[0]
                h = json.loads(f.read(k))
            for key, v in h.items():
                if key != "__metadata__":
                    out.append((key, v["shape"], v["dtype"]))
    return out


SAFE_DTYPES = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "F64": "<f8", "I64": "<i8",
               "I32": "<i4", "U8": "u1", "I8": "i1", "BOOL": "?"}


def safe_open_style(path, load=True):
    """What safetensors.safe_open(path, "np") does: the header with json,
    each tensor a memmap of its bytes."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        if not load:
            out[k] = (v["dtype"], v["shape"])
            continue
        b, e = v["data_offsets"]
        out[k] = np.memmap(path, dtype=SAFE_DTYPES[v["dtype"]], mode="r", offset=8 + n + b,
                           shape=tuple(v["shape"]))
    return len(out)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    print("load average: %s, %d CPUs; tshape %s from %s; median of %d rounds" % (
        " ".join(open("/proc/loadavg").read().split()[:3]), os.cpu_count(),
        tshape.library_version(), tshape.library_path(), ROUNDS))
    many = os.path.join(D, "many")
    if os.path.isdir(many):
        print("\n1. a folder of %d files (%s)" % (len(os.listdir(many)), many))
        assert len(tshape_records(many)) == len(numpy_loop(many)) == 1500
        t_open = median_time(lambda: tshape_open(many))
        t_rec = median_time(lambda: tshape_records(many))
        t_np = median_time(lambda: numpy_loop(many))
        row("numpy.load(mmap_mode='r') + json/struct headers, every file", t_np)
        row("tshape.open(folder)", t_open, t_np)
        row("tshape.open(folder) + every record's name, shape, dtype", t_rec, t_np)
    else:
        print("1. skipped: run bench/model.sh first (it writes %s)" % many)

    pt = os.path.join(D, "torch_400mb.pt")
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and os.path.exists(pt):
        params = inspect.signature(torch.load).parameters
        kw = {k: True for k in ("weights_only", "mmap") if k in params}
        print("\n2. a %d MB torch.save checkpoint (%s); torch %s: torch.load(%s)" % (
            os.path.getsize(pt) >> 20, pt, torch.__version__,
            ", ".join("%s=True" % k for k in kw)))

        def torch_load():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sd = torch.load(pt, map_location="cpu", **kw)
            return [(k, tuple(v.shape), v.dtype) for k, v in sd.items()]

        def torch_numpy():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sd = torch.load(pt, map_location="cpu", **kw)
            return sum(v.numpy().size for v in sd.values())

        assert len(tshape_records(pt)) == len(torch_load())
        ours = tshape.load(pt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = torch.load(pt, map_location="cpu", **kw)
        assert all(ours[k].tobytes() == ref[k].numpy().tobytes() for k in ref)
        del ours, ref
        t_t = median_time(torch_load)
        t_tn = median_time(torch_numpy)
        row("torch.load + every tensor's name, shape, dtype", t_t)
        row("tshape.open + every record's name, shape, dtype", median_time(
            lambda: tshape_records(pt)), t_t)
        row("torch.load + every tensor as a NumPy array (.numpy())", t_tn)
        row("tshape.load (every array, zero-copy views)", median_time(lambda: tshape_load(pt)),
            t_tn)
        st = os.path.join(D, "torch_400mb.safetensors")
        if not os.path.exists(st):
            tshape.convert(pt, st)
        print("\n3. the same weights as safetensors (%s, %d MB)" % (st, os.path.getsize(st) >> 20))
        t_h = median_time(lambda: safe_open_style(st, load=False))
        t_m = median_time(lambda: safe_open_style(st))
        row("json + struct: the header, every tensor's dtype and shape", t_h)
        row("tshape.open + every record's name, shape, dtype", median_time(
            lambda: tshape_records(st)), t_h)
        row("safe_open-style: json header + numpy.memmap of every tensor", t_m)
        row("tshape.load (every array, zero-copy views)", median_time(lambda: tshape_load(st)),
            t_m)
    else:
        print("2, 3. skipped: python3-torch missing or %s absent (bench/pytorch.sh writes it)"
              % pt)


if __name__ == "__main__":
    sys.exit(main())
