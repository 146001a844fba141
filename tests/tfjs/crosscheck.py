#!/usr/bin/python3
"""crosscheck.py TSHAPE FILE... - every fact tshape reports about TensorFlow.js
models (model.json or *weights_manifest.json) against a reference written
from tfjs-core's rules (src/io/types.ts, io_utils decodeWeights): within a
group the shards, concatenated in "paths" order, hold the weights back to
back in "weights" order; a weight takes size x the bytes of its stored dtype
(the quantization dtype when there is one).

For each weight (`info --json`): name, dtype (stored), format_dtype (the
manifest's), shape, nbytes, storage_key (the shard it starts in),
data_offset (its offset there) and note (quantisation as written, shard
crossings, string weights); the metadata (`info --json --metadata`); and,
when tshape reads the shards' values (`stats --json`), count, min, max and
zeros exactly and mean within 1e-12 of the largest magnitude of NumPy's over
the bytes in the shards. Prints each difference; exit 1 when there is one.
"""
import json
import os
import subprocess
import sys

import numpy as np

BYTES = {"float32": 4, "int32": 4, "bool": 1, "complex64": 8, "uint8": 1, "uint16": 2,
         "float16": 2}
NUMPY = {"float32": "<f4", "int32": "<i4", "bool": "?", "complex64": "<c8", "uint8": "u1",
         "uint16": "<u2", "float16": "<f2"}


class Num(str):
    """A number as written in the file."""


def load(path):
    with open(path, "rb") as fp:
        return json.load(fp, parse_float=Num, parse_int=Num)


def expected(path):
    doc = load(path)
    folder = os.path.dirname(path)
    manifest = doc if isinstance(doc, list) else doc["weightsManifest"]
    arrays, values, shards = [], [], []
    for g, group in enumerate(manifest):
        paths = group["paths"]
        blobs = [open(os.path.join(folder, p), "rb").read() for p in paths]
        sizes = [len(b) for b in blobs]
        starts = [sum(sizes[:k]) for k in range(len(sizes))]
        data = b"".join(blobs)
        for p, n in zip(paths, sizes):
            shards.append(dict(path=p, group=g, bytes=n))
        off, after = 0, None
        for w in group["weights"]:
            q = w.get("quantization")
            stored = q["dtype"] if q else w["dtype"]
            count = int(np.prod([int(d) for d in w["shape"]])) if w["shape"] else 1
            notes = []
            if q and q["dtype"] == "float16":
                notes.append("quantized float16 of %s" % w["dtype"])
            elif q:
                notes.append("quantized %s of %s: value = q * scale + min (scale %s, min %s)"
                             % (q["dtype"], w["dtype"], q["scale"], q["min"]))
            a = dict(name=w["name"], dtype="object" if stored == "string" else stored,
                     format_dtype=w["dtype"], shape=[int(d) for d in w["shape"]],
                     nbytes=None, data_offset=None, storage_key=None)
            if stored != "string":
                a["nbytes"] = count * BYTES[stored]
            if after is not None:
                notes.append("offset unknown: it follows string weight '%s', whose size is "
                             "in the data" % after)
            elif stored == "string":
                after = w["name"]
                notes.append("string data from byte %d of group %d (u32 length and bytes per "
                             "string)" % (off, g))
            else:
                n = count * BYTES[stored]
                end = off + n
                # the first shard that holds byte `off` (the last one for an
                # empty weight at the end of the group)
                k = next((i for i in range(len(paths)) if off < starts[i] + sizes[i]),
                         len(paths) - 1)
                last = k
                while last + 1 < len(paths) and end > starts[last] + sizes[last]:
                    last += 1
                if last != k:
                    notes.append("crosses from shard '%s' into '%s' (bytes %d..%d of group %d)"
                                 % (paths[k], paths[last], off, end, g))
                a.update(nbytes=n, data_offset=off - starts[k], storage_key=paths[k])
                values.append((w["name"], np.frombuffer(data, NUMPY[stored], count, off)))
                off = end
            a["note"] = "; ".join(notes) if notes else None
            arrays.append(a)
    meta = {}
    if isinstance(doc, list):
        meta["format"] = "weights manifest"
    else:
        for k in ("format", "generatedBy", "convertedBy", "signature", "userDefinedMetadata"):
            if k in doc:
                meta[k] = json.loads(json.dumps(doc[k]), parse_float=float)
    meta.update({"weight_groups": len(manifest),
                 "weights": sum(len(g["weights"]) for g in manifest), "shards": shards})
    return arrays, json.loads(json.dumps(meta)), values


def run(tshape, *args):
    p = subprocess.run([tshape] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


COMPARED = [0]  # arrays whose statistics were compared


def check(tshape, path):
    problems = []
    arrays, meta, values = expected(path)
    rc, out, err = run(tshape, "info", "--json", "--metadata", path)
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
    for k in sorted(set(meta) | set(got_meta or {})):
        if (got_meta or {}).get(k) != meta.get(k):
            problems.append("metadata %s is %r, the reference says %r"
                            % (k, (got_meta or {}).get(k), meta.get(k)))
    rc, out, err = run(tshape, "stats", "--json", path)
    if "which is not read" in err:
        return problems  # this tshape does not read shards' values
    stats = {json.loads(l)["name"]: json.loads(l) for l in out.splitlines()}
    for name, v in values:
        s = stats.get(name)
        COMPARED[0] += 1
        if s is None:
            problems.append("%s: no statistics (%s)" % (name, err.strip()[:200]))
            continue
        mag = np.abs(v.astype(np.complex128)) if v.dtype.kind == "c" else v
        want = dict(count=v.size, zeros=int(np.count_nonzero(v == 0)))
        if v.size:
            want.update(min=mag.min().item(), max=mag.max().item())
        for k, w in want.items():
            if s.get(k) != w:
                problems.append("%s: stats %s is %r, NumPy says %r" % (name, k, s.get(k), w))
        if v.size:
            m = mag.astype(np.float64)
            if abs(s.get("mean") - float(np.mean(m))) > 1e-12 * float(np.max(np.abs(m))):
                problems.append("%s: stats mean %r, NumPy %r" % (name, s.get("mean"),
                                                                float(np.mean(m))))
    return problems


def main():
    tshape, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for path in files:
        problems = check(tshape, path)
        for p in problems:
            print("%s: %s" % (path, p))
        bad += bool(problems)
        print("%s: %s" % (path, "differs" if problems else "agrees"))
    print("%d of %d files agree with the reference reader (values of %d arrays compared)"
          % (len(files) - bad, len(files), COMPARED[0]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
