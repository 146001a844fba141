#!/usr/bin/python3
"""crosscheck.py TSHAPE FILE... - every fact tshape reports about TFLite files
against an independent reader.

The reference reader is the Python code `flatc --python` generates from
tests/tflite/reference.fbs (the TFLite schema's tables, written out), run on
python3-flatbuffers' runtime: it shares nothing with tshape's C reader. For
each FILE it computes, by the rules tshape(1) documents for TFLite:
  - every tensor of every subgraph (`info --json --all`): name (tensors of
    subgraph N > 0 as "<subgraph name>/<name>", "subgraphN/<name>" when the
    subgraph has none), dtype, format_dtype, shape, nbytes, data_offset (the
    buffer's data vector in the file, or its offset/size form) and the note
    (quantisation, shape_signature, variable, activation role, sparsity,
    string data, data outside the FlatBuffer, buffers shared);
  - the metadata (`info --json --metadata`);
  - the values (`stats --json`): count, min, max, zeros exactly and mean
    within 1e-12 of the largest magnitude of NumPy's over the buffer's bytes, for every dense tensor
    of a dtype NumPy has.
Prints each difference and exits 1 when there is one; 0 when all agree.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TYPES = ["FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16",
         "COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
         "UINT32", "UINT16", "INT4", "BFLOAT16", "INT2", "UINT4"]
# TensorType -> (dtype name, bits per element or None, NumPy dtype or None)
DTYPES = {
    "FLOAT32": ("float32", 32, "<f4"), "FLOAT16": ("float16", 16, "<f2"),
    "INT32": ("int32", 32, "<i4"), "UINT8": ("uint8", 8, "u1"), "INT64": ("int64", 64, "<i8"),
    "STRING": ("object", None, None), "BOOL": ("bool", 8, "?"), "INT16": ("int16", 16, "<i2"),
    "COMPLEX64": ("complex64", 64, "<c8"), "INT8": ("int8", 8, "i1"),
    "FLOAT64": ("float64", 64, "<f8"), "COMPLEX128": ("complex128", 128, "<c16"),
    "UINT64": ("uint64", 64, "<u8"), "RESOURCE": ("resource", None, None),
    "VARIANT": ("variant", None, None), "UINT32": ("uint32", 32, "<u4"),
    "UINT16": ("uint16", 16, "<u2"), "INT4": ("int4", 4, None),
    "BFLOAT16": ("bfloat16", 16, None), "INT2": ("int2", 2, None), "UINT4": ("uint4", 4, None),
}


def bindings():
    out = tempfile.mkdtemp(prefix="tshape-tflite-ref.")
    subprocess.run(["flatc", "--python", "-o", out, os.path.join(HERE, "reference.fbs")],
                   check=True)
    sys.path.insert(0, out)
    import tflite_ref.Model  # noqa: F401  (generated)
    return out


def vec_pos(table, slot):
    """Absolute position of the elements of vector field `slot` (id), or None."""
    o = table._tab.Offset(4 + 2 * slot)
    return table._tab.Vector(o) if o else None


def g9(x):
    """C's %.9g."""
    return "%.9g" % x


def dims(v):
    return "(" + ",".join(str(int(x)) for x in v) + (",)" if len(v) == 1 else ")")


def buffer_of(model, i):
    b = model.Buffers(i)
    n = b.DataLength()
    if b.Offset() > 1:
        return True, True, b.Offset(), b.Size()
    if n > 0:
        return True, False, vec_pos(b, 0), n
    return False, False, None, 0


def expected(path):
    from tflite_ref.Model import Model
    raw = open(path, "rb").read()
    m = Model.GetRootAs(raw, 0)
    arrays, users, values = [], {}, []
    n_ops = 0
    for s in range(m.SubgraphsLength()):
        g = m.Subgraphs(s)
        n_ops += g.OperatorsLength()
        gname = g.Name().decode() if g.Name() else ""
        prefix = "" if s == 0 else (gname or "subgraph%d" % s) + "/"
        ins = [g.Inputs(k) for k in range(g.InputsLength())]
        outs = [g.Outputs(k) for k in range(g.OutputsLength())]
        for i in range(g.TensorsLength()):
            t = g.Tensors(i)
            has, outside, off, size = buffer_of(m, t.Buffer()) if m.BuffersLength() else (
                False, False, None, 0)
            tname = TYPES[t.Type()] if 0 <= t.Type() < len(TYPES) else None
            dname, bits, npd = DTYPES[tname]
            shape = [t.Shape(k) for k in range(t.ShapeLength())]
            count = int(np.prod(shape)) if shape else 1
            fixed = bits is not None
            nbytes = (count * bits + 7) // 8 if fixed else None
            notes = []
            q = t.Quantization()
            if q is not None:
                if q.DetailsType():
                    notes.append("custom quantization (QuantizationDetails type %d)"
                                 % q.DetailsType())
                ns, nz = q.ScaleLength(), q.ZeroPointLength()
                if ns == 1:
                    notes.append("quantized per-tensor: scale %s, zero_point %d"
                                 % (g9(q.Scale(0)), q.ZeroPoint(0)))
                elif ns or nz:
                    notes.append("quantized per-axis on axis %d: %d scales, %d zero points"
                                 % (q.QuantizedDimension(), ns, nz))
            if not t.ShapeSignatureIsNone():
                notes.append("shape_signature " + dims(
                    [t.ShapeSignature(k) for k in range(t.ShapeSignatureLength())]))
            if t.IsVariable():
                notes.append("variable")
            offset = None
            sp = t.Sparsity()
            if not has:
                role = ""
                if i in ins:
                    role = ", input %d of its subgraph" % ins.index(i)
                elif i in outs:
                    role = ", output %d of its subgraph" % outs.index(i)
                notes.append("no data in the file (an activation%s)" % role)
            elif sp is not None:
                notes.append("sparse (TFLite sparsity: traversal_order %s, block_map %s, %d "
                             "dim_metadata): %d bytes of stored values and indices at byte "
                             "%d, not read as a dense array" % (
                                 dims([sp.TraversalOrder(k)
                                       for k in range(sp.TraversalOrderLength())]),
                                 dims([sp.BlockMap(k) for k in range(sp.BlockMapLength())]),
                                 sp.DimMetadataLength(), size, off))
            elif not fixed:
                notes.append("%s data: %d bytes at byte %d" % (tname, size, off))
            else:
                assert size == nbytes, (path, t.Name(), size, nbytes)
                offset = off
                if outside:
                    notes.append("data outside the FlatBuffer (buffer offset/size)")
                if npd:
                    values.append((prefix + t.Name().decode(), np.frombuffer(
                        raw, dtype=npd, count=count, offset=off)))
            name = prefix + t.Name().decode()
            if has:
                if t.Buffer() in users:
                    notes.append("shares buffer %d with '%s'" % (t.Buffer(),
                                                                 users[t.Buffer()]))
                else:
                    users[t.Buffer()] = name
            arrays.append(dict(name=name, dtype=dname, format_dtype=tname, shape=shape,
                               nbytes=nbytes, data_offset=offset,
                               note="; ".join(notes) if notes else None))
    meta = {"version": m.Version()}
    if m.Description() is not None:
        meta["description"] = m.Description().decode()
    names, runtime = [], None
    for k in range(m.MetadataLength()):
        e = m.Metadata(k)
        names.append(e.Name().decode())
        if e.Name() == b"min_runtime_version":
            b = m.Buffers(e.Buffer())
            runtime = bytes(b.Data(j) for j in range(b.DataLength())).rstrip(b"\0").decode()
    meta["metadata"] = names
    if runtime is not None:
        meta["min_runtime_version"] = runtime
    meta.update(subgraphs=m.SubgraphsLength(), operators=n_ops,
                operator_codes=m.OperatorCodesLength(), buffers=m.BuffersLength(),
                signatures=m.SignatureDefsLength(),
                signature_keys=[m.SignatureDefs(k).SignatureKey().decode()
                                for k in range(m.SignatureDefsLength())])
    if m.SubgraphsLength():
        g = m.Subgraphs(0)
        for key, idx in (("graph.inputs", [g.Inputs(k) for k in range(g.InputsLength())]),
                         ("graph.outputs", [g.Outputs(k) for k in range(g.OutputsLength())])):
            lst = []
            for i in idx:
                t = g.Tensors(i)
                sig = not t.ShapeSignatureIsNone()
                shape = [t.ShapeSignature(k) for k in range(t.ShapeSignatureLength())] if sig \
                    else [t.Shape(k) for k in range(t.ShapeLength())]
                lst.append(dict(name=t.Name().decode(), dtype=DTYPES[TYPES[t.Type()]][0],
                                shape=shape))
            meta[key] = lst
    return arrays, meta, values


def run(tshape, *args):
    p = subprocess.run([tshape] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


COMPARED = [0]  # arrays whose statistics were compared


def check(tshape, path):
    problems = []
    arrays, meta, values = expected(path)
    rc, out, err = run(tshape, "info", "--json", "--all", "--metadata", path)
    if rc != 0:
        return ["info exit %d: %s" % (rc, err.strip())]
    got, got_meta = [], None
    for line in out.splitlines():
        r = json.loads(line)
        if "metadata" in r:
            got_meta = r["metadata"]
        elif "name" in r:
            got.append(r)
    if len(got) != len(arrays):
        problems.append("%d arrays, the reference has %d" % (len(got), len(arrays)))
    for a, g in zip(arrays, got):
        for k, v in a.items():
            if g.get(k) != v:
                problems.append("%s: %s is %r, the reference says %r" % (a["name"], k,
                                                                       g.get(k), v))
    if got_meta != meta:
        for k in sorted(set(meta) | set(got_meta or {})):
            if (got_meta or {}).get(k) != meta.get(k):
                problems.append("metadata %s is %r, the reference says %r" % (
                    k, (got_meta or {}).get(k), meta.get(k)))
    # values
    rc, out, err = run(tshape, "stats", "--json", path)
    stats = {}
    for line in out.splitlines():
        r = json.loads(line)
        stats[r["name"]] = r
    for name, v in values:
        s = stats.get(name)
        COMPARED[0] += 1
        if s is None:
            problems.append("%s: no statistics (%s)" % (name, err.strip()[:200]))
            continue
        x = v.astype(np.complex128) if v.dtype.kind == "c" else v
        mag = np.abs(x) if v.dtype.kind == "c" else x
        want = dict(count=v.size, zeros=int(np.count_nonzero(x == 0)))
        if v.size:
            want.update(min=mag.min().item(), max=mag.max().item())
        for k, w in want.items():
            if s.get(k) != w and not (isinstance(w, float) and np.isnan(w)):
                problems.append("%s: stats %s is %r, NumPy says %r" % (name, k, s.get(k), w))
        if v.size:
            # summation order differs: within 1e-12 of the largest magnitude
            mean = float(np.mean(mag.astype(np.float64)))
            tol = 1e-12 * float(np.max(np.abs(mag.astype(np.float64))))
            if abs(s.get("mean") - mean) > tol:
                problems.append("%s: stats mean %r, NumPy %r" % (name, s.get("mean"), mean))
    return problems


def main():
    tshape, files = sys.argv[1], sys.argv[2:]
    out = bindings()
    bad = 0
    try:
        for path in files:
            problems = check(tshape, path)
            for p in problems:
                print("%s: %s" % (path, p))
            bad += bool(problems)
            print("%s: %s" % (path, "differs" if problems else "agrees"))
    finally:
        subprocess.run(["rm", "-rf", out])
    print("%d of %d files agree with the reference reader (values of %d arrays compared)"
          % (len(files) - bad, len(files), COMPARED[0]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
