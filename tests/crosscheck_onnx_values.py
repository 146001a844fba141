#!/usr/bin/python3
"""Cross-checks the values of ONNX initializers stored in TensorProto's
typed fields (float_data, int32_data, int64_data, double_data,
uint64_data) as ts_array_read decodes them (tests/tsvalues.c dump) against
onnx.numpy_helper.to_array, element by element, exactly:
  - tests/fixtures/onnx/typed_values.onnx (tests/fixtures/gen_onnx_values.py)
  - a model generated here with 100,003 random values per dtype
    (make_tensor(..., raw=False): packed fields longer than the decoder's
    256 KiB buffer, so values straddle its refills), NaN and Inf included
  - tests/fixtures/onnx/typed_pieces.onnx (unpacked, split and interleaved
    fields, float8 bits, bool from 256) against the values its generator
    wrote, since it is hand-written wire format
  - external data (issue 20 item 13): the big model saved by onnx.save_model
    with save_as_external_data, all tensors in one side file and each in its
    own, and ../shared/corpus/onnx/external.onnx when present, against
    numpy_helper.to_array(t, base_dir)
Usage: crosscheck_onnx_values.py TSVALUES
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(4413)


def dump(tool, path, name, kind):
    as_ = {"b": "i8", "i": "i8", "u": "u8", "f": "f8", "c": "c16"}[kind]
    out = subprocess.run([tool, "dump", path, name, as_], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    return out.stdout.split("\n")[:-1], ""


def same(line, x, kind):
    if kind == "c":
        re, im = (float(t) for t in line.split())
        return all(u == v or (np.isnan(u) and np.isnan(v))
                   for u, v in ((re, float(x.real)), (im, float(x.imag))))
    if kind == "f":
        g = float(line)
        return g == float(x) or (np.isnan(g) and np.isnan(x))
    return int(line) == int(x)


def check(tool, path, name, ref):
    ref = np.asarray(ref)
    kind = ref.dtype.kind
    lines, msg = dump(tool, path, name, kind)
    if lines is None:
        print("MISMATCH %s %s: %s" % (os.path.basename(path), name, msg))
        return 1, 0
    flat = ref.ravel()
    if len(lines) != flat.size:
        print("MISMATCH %s %s: %d values, expected %d" % (path, name, len(lines), flat.size))
        return 1, 0
    for i, (line, x) in enumerate(zip(lines, flat)):
        if not same(line, x, kind):
            print("MISMATCH %s %s[%d]: %s, onnx %r" % (os.path.basename(path), name, i, line, x))
            return 1, 0
    return 0, flat.size


def big_model(path):
    n = 100_003
    f = RNG.standard_normal(n).astype(np.float32) * 1e3
    f[[5, 77777]] = [np.nan, -np.inf]
    d = RNG.standard_normal(n) * 1e-200
    d[9] = np.inf
    i32 = RNG.integers(-2**31, 2**31, n, dtype=np.int64)
    i64 = RNG.integers(-2**63, 2**63, n, dtype=np.int64, endpoint=False)
    u64 = RNG.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    h = (RNG.standard_normal(n) * 100).astype(np.float16)
    c = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(np.complex64)
    inits = [
        helper.make_tensor("f32", TensorProto.FLOAT, [n], f.tolist()),
        helper.make_tensor("f64", TensorProto.DOUBLE, [n], d.tolist()),
        helper.make_tensor("i32", TensorProto.INT32, [n], i32.tolist()),
        helper.make_tensor("i64", TensorProto.INT64, [n], i64.tolist()),
        helper.make_tensor("u64", TensorProto.UINT64, [n], [int(x) for x in u64]),
        helper.make_tensor("i8", TensorProto.INT8, [n], (i32 % 256 - 128).tolist()),
        helper.make_tensor("u16", TensorProto.UINT16, [n], (i32 % 65536).tolist()),
        helper.make_tensor("f16", TensorProto.FLOAT16, [n], h.tolist()),
        helper.make_tensor("c64", TensorProto.COMPLEX64, [n], c.tolist()),
        helper.make_tensor("bool", TensorProto.BOOL, [n], (i32 % 3 == 0).tolist()),
    ]
    model = helper.make_model(helper.make_graph([], "big", [], [], inits))
    with open(path, "wb") as out:
        out.write(model.SerializeToString())


def reference(t):
    """onnx.numpy_helper.to_array, except complex: onnx 1.12's to_array
    passes the complex values to np.asarray with the float storage dtype
    and fails, so those are built from the field's (re, im) pairs, the rule
    onnx.proto states."""
    if t.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
        single = t.data_type == TensorProto.COMPLEX64
        pairs = np.array(t.float_data if single else t.double_data,
                         np.float32 if single else np.float64).reshape(-1, 2)
        return (pairs[:, 0] + 1j * pairs[:, 1].astype(np.float64)).astype(
            np.complex64 if single else np.complex128).reshape(tuple(t.dims))
    return numpy_helper.to_array(t)


def check_external(tool, path):
    """Every initializer of a model with external data against
    numpy_helper.to_array with the model's folder as base_dir."""
    model = onnx.load(path, load_external_data=False)
    bad = values = arrays = 0
    for t in model.graph.initializer:
        # (small tensors stay in the model: the corpus file keeps one)
        ref = numpy_helper.to_array(t, base_dir=os.path.dirname(path))
        b, n = check(tool, path, t.name, ref)
        bad, values, arrays = bad + b, values + n, arrays + 1
    return bad, values, arrays


PIECES = {
    "floats": np.array([0.5, -1.25, 3.0], np.float32),
    "ints": np.array([[-3, 40000], [7, -70000]], np.int32),
    "longs": np.array([-1, 2**40, -2**63], np.int64),
    "ulongs": np.array([2**64 - 1, 0], np.uint64),
    "doubles": np.array([-2.5, 1e-5]),
    "f8e4m3": np.array([1.0, -448.0, 0.0625]),
    "f8e5m2": np.array([2.0, -57344.0, 0.5]),
    "flags": np.array([True, False, True]),
}


def main():
    tool = sys.argv[1]
    bad = values = arrays = 0
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big_typed.onnx")
        big_model(big)
        for path in ["tests/fixtures/onnx/typed_values.onnx", big]:
            model = onnx.load(path)
            for t in model.graph.initializer:
                if t.HasField("raw_data") and t.raw_data:
                    print("MISMATCH %s %s: written as raw_data" % (path, t.name))
                    bad += 1
                    continue
                b, n = check(tool, path, t.name, reference(t))
                bad, values, arrays = bad + b, values + n, arrays + 1
        # external data: one side file, then one file per tensor
        external = 0
        for one in (True, False):
            sub = os.path.join(tmp, "ext1" if one else "extn")
            os.mkdir(sub)
            model = onnx.load(big)
            for t in model.graph.initializer:  # raw_data: what external data holds
                t.CopyFrom(numpy_helper.from_array(reference(t), t.name))
            path = os.path.join(sub, "model.onnx")
            onnx.save_model(model, path, save_as_external_data=True,
                            all_tensors_to_one_file=one, location="weights.bin",
                            size_threshold=0)
            external += sum(t.data_location == TensorProto.EXTERNAL
                            for t in onnx.load(path, load_external_data=False).graph.initializer)
            b, n, k = check_external(tool, path)
            bad, values, arrays = bad + b, values + n, arrays + k
        if external != 20:
            print("MISMATCH: %d tensors saved as external data, expected 20" % external)
            bad += 1
    corpus = "../shared/corpus/onnx/external.onnx"
    if os.path.exists(corpus):
        b, n, k = check_external(tool, corpus)
        bad, values, arrays = bad + b, values + n, arrays + k
    for name, ref in PIECES.items():
        b, n = check(tool, "tests/fixtures/onnx/typed_pieces.onnx", name, ref)
        bad, values, arrays = bad + b, values + n, arrays + 1
    print("crosscheck_onnx_values: %d typed-field and external-data arrays, %d values agree with "
          "onnx.numpy_helper.to_array (onnx %s), %d mismatches"
          % (arrays, values, onnx.__version__, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
