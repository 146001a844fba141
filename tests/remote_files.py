#!/usr/bin/python3
"""remote_files.py DIR - writes the files tests/remote_check.py serves over
HTTP, with the standard library only (they are larger than fixtures should
be, so they are written at test time, not committed):

  big.safetensors       a 24 MiB safetensors file with a 6 KiB header
  edge-<N>.safetensors  headers of N bytes around the first request's
                        128 KiB (131,064..131,080) and around huggingface_hub's
                        100,000 (99,994..100,000: huggingface_hub#4602)
  vocab.gguf            a GGUF whose 30,000-token vocabulary (about 600 KiB of
                        metadata) runs far past the first request
  torch.pt              a torch.save-format zip (data.pkl, 3 storages of
                        8 MiB), pickled here with stand-ins for torch's
                        classes, so no torch is needed
  arrays.npz            an npz of 3 stored members of 4 MiB
  cdir.npz              an npz whose central directory straddles the bytes
                        the end record is searched in (200 members)
  model.onnx            an ONNX model with 4 initializers of 4 MiB of raw_data
  shards/               a safetensors model in 4 shards with its index
  model.tflite          a TFLite model of 16 tensors of 1 MiB, tables first and
                        buffer data last, as TensorFlow's converter lays it out
  tfjs/                 a TensorFlow.js graph model: model.json and 5 shards of
                        4 MiB or less, weights crossing them

Sizes are what the request-count checks assume; the data is zeros.
"""
import collections
import json
import os
import pickle
import struct
import sys
import types
import zipfile

MiB = 1 << 20


def safetensors(path, tensors, pad_to=None, total=None):
    """tensors: [(name, dtype, shape, nbytes)]; the header padded with spaces
    to pad_to bytes when given; the file extended (sparse) to its size."""
    header, off = {}, 0
    for name, dtype, shape, nbytes in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + nbytes]}
        off += nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad_to is not None:
        assert len(text) <= pad_to, (len(text), pad_to)
        text += b" " * (pad_to - len(text))
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + off)


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def vocab_gguf(path):
    kv = [gguf_string("general.architecture") + struct.pack("<I", 8) + gguf_string("llama")]
    tokens = [("tok%05d" % i) for i in range(30000)]
    kv.append(gguf_string("tokenizer.ggml.tokens") + struct.pack("<II", 9, 8) +
              struct.pack("<Q", len(tokens)) + b"".join(gguf_string(t) for t in tokens))
    kv.append(gguf_string("tokenizer.ggml.scores") + struct.pack("<II", 9, 6) +
              struct.pack("<Q", len(tokens)) + b"\0" * (4 * len(tokens)))
    infos, off = [], 0
    for name, ne in (("token_embd.weight", (64, 30000)), ("output_norm.weight", (64,))):
        infos.append(gguf_string(name) + struct.pack("<I", len(ne)) +
                     b"".join(struct.pack("<Q", d) for d in ne) + struct.pack("<IQ", 0, off))
        n = 4
        for d in ne:
            n *= d
        off += (n + 31) // 32 * 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kv)) + b"".join(kv) + b"".join(infos)
    start = (len(head) + 31) // 32 * 32
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(start + off)


# ---- a torch.save zip without torch ----------------------------------------

def torch_stand_ins():
    """Modules torch and torch._utils with the names torch.save pickles, so
    pickle writes the same GLOBALs; nothing of them is ever called."""
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch._utils")

    def _rebuild_tensor_v2(*args):
        raise RuntimeError("a stand-in")
    _rebuild_tensor_v2.__module__ = "torch._utils"
    _rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"

    class FloatStorage:
        pass
    FloatStorage.__module__ = "torch"
    FloatStorage.__qualname__ = "FloatStorage"
    utils._rebuild_tensor_v2 = _rebuild_tensor_v2
    torch._utils = utils
    torch.FloatStorage = FloatStorage
    sys.modules["torch"] = torch
    sys.modules["torch._utils"] = utils
    return _rebuild_tensor_v2, FloatStorage


class Storage:
    def __init__(self, key, numel):
        self.key, self.numel = key, numel


class Tensor:
    def __init__(self, rebuild, storage, shape):
        self.rebuild, self.storage, self.shape = rebuild, storage, shape

    def __reduce__(self):
        strides, s = [], 1
        for d in reversed(self.shape):
            strides.insert(0, s)
            s *= d
        return (self.rebuild, (self.storage, 0, tuple(self.shape), tuple(strides), False,
                               collections.OrderedDict()))


def torch_zip(path, tensors):
    rebuild, float_storage = torch_stand_ins()

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, Storage):
                return ("storage", float_storage, obj.key, "cpu", obj.numel)
            return None
    sd, storages = collections.OrderedDict(), []
    for i, (name, shape) in enumerate(tensors):
        n = 1
        for d in shape:
            n *= d
        st = Storage(str(i), n)
        storages.append(st)
        sd[name] = Tensor(rebuild, st, shape)
    import io
    buf = io.BytesIO()
    P(buf, protocol=2).dump(sd)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", buf.getvalue())
        z.writestr("archive/byteorder", "little")
        for st in storages:
            write_zeros(z, "archive/data/" + st.key, b"", 4 * st.numel)
        z.writestr("archive/version", "3\n")


def write_zeros(z, name, head, n):
    """A stored member: head then n zero bytes, written in steps."""
    with z.open(name, "w", force_zip64=len(head) + n > (1 << 31)) as f:
        f.write(head)
        step = b"\0" * min(n, 8 * MiB)
        while n > 0:
            k = min(n, len(step))
            f.write(step[:k])
            n -= k


def npy_header(shape):
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (
        "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")")
    hdr = hdr.encode()
    pad = 64 - (10 + len(hdr) + 1) % 64
    hdr += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr


def npz(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, shape in members:
            n = 4
            for d in shape:
                n *= d
            write_zeros(z, name + ".npy", npy_header(shape), n)


# ---- protobuf (ONNX) --------------------------------------------------------

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def onnx_model(path, inits):
    """ir_version, producer, a graph of initializers of zeros (raw_data,
    written in steps) and an opset; the lengths are computed first."""
    tensors = []
    for name, dims in inits:
        n = 4
        for d in dims:
            n *= d
        head = b"".join(field(1, 0, d) for d in dims) + field(2, 0, 1) + \
            field(8, 2, name.encode()) + varint(9 << 3 | 2) + varint(n)
        tensors.append((head, n))
    tail = field(2, 2, b"g")
    graph_len = sum(len(varint(5 << 3 | 2)) + len(varint(len(h) + n)) + len(h) + n
                    for h, n in tensors) + len(tail)
    with open(path, "wb") as f:
        f.write(field(1, 0, 8) + field(2, 2, b"remote_files.py") + varint(7 << 3 | 2) +
                varint(graph_len))
        for h, n in tensors:
            f.write(varint(5 << 3 | 2) + varint(len(h) + n) + h)
            zero = b"\0" * min(n, 8 * MiB)
            while n > 0:
                k = min(n, len(zero))
                f.write(zero[:k])
                n -= k
        f.write(tail + field(8, 2, field(2, 0, 13)))


def tflite_model(path, n, per):
    """A TFLite FlatBuffer written forward: the Model table, one subgraph of n
    float32 tensors of `per` bytes (n + 1 buffers, buffer 0 empty), the
    buffers' data last, 16-byte aligned and written as zeros (sparse).
    Returns the file size."""
    out = bytearray()

    def u32(v):
        out.extend(struct.pack("<I", v))

    def patch(pos, target):  # the uoffset at pos points at target
        struct.pack_into("<I", out, pos, target - pos)

    def table(ids):
        """A table with one 4-byte field per id; its position and each
        field's."""
        nslots = max(ids, default=-1) + 1
        out.extend(b"\0" * (-len(out) % 4))
        vt = len(out)
        out.extend(struct.pack("<HH", 4 + 2 * nslots, 4 + 4 * len(ids)))
        for i in range(nslots):
            out.extend(struct.pack("<H", 4 + 4 * ids.index(i) if i in ids else 0))
        out.extend(b"\0" * (-len(out) % 4))
        t = len(out)
        u32(t - vt)
        out.extend(b"\0" * (4 * len(ids)))
        return t, {i: t + 4 + 4 * k for k, i in enumerate(ids)}

    def vector(count):
        out.extend(b"\0" * (-len(out) % 4))
        v = len(out)
        u32(count)
        out.extend(b"\0" * (4 * count))
        return v, [v + 4 + 4 * k for k in range(count)]

    u32(0)
    out.extend(b"TFL3")
    model, mf = table([0, 2, 4])
    patch(0, model)
    struct.pack_into("<I", out, mf[0], 3)
    subs, ss = vector(1)
    patch(mf[2], subs)
    sg, sf = table([0])
    patch(ss[0], sg)
    tv, ts = vector(n)
    patch(sf[0], tv)
    for i in range(n):
        t, tf = table([0, 2, 3])
        patch(ts[i], t)
        struct.pack_into("<I", out, tf[2], i + 1)
        shape, _ = vector(1)
        struct.pack_into("<I", out, shape + 4, per // 4)
        patch(tf[0], shape)
        name = b"layer.%d.weight" % i
        patch(tf[3], len(out))
        u32(len(name))
        out.extend(name + b"\0")
    bv, bs = vector(n + 1)
    patch(mf[4], bv)
    slots = []
    for i in range(n + 1):
        b, bf = table([0] if i else [])
        patch(bs[i], b)
        if i:
            slots.append(bf[0])
    pos, starts = len(out), []
    for s in slots:
        pos += -(pos + 4) % 16
        starts.append(pos)
        patch(s, pos)
        pos += 4 + per
    with open(path, "wb") as f:
        f.write(out)
        for p in starts:
            f.seek(p)
            f.write(struct.pack("<I", per))
        f.truncate(pos)
    return pos


def tfjs_model(folder, n, per, shard):
    """A TF.js graph model of n float32 weights of `per` bytes in shards of
    `shard` bytes (zeros)."""
    os.makedirs(folder, exist_ok=True)
    total = n * per
    k = (total + shard - 1) // shard
    paths = ["group1-shard%dof%d.bin" % (i + 1, k) for i in range(k)]
    for i, p in enumerate(paths):
        with open(os.path.join(folder, p), "wb") as f:
            f.truncate(min(shard, total - i * shard))
    weights = [{"name": "w%d" % i, "shape": [per // 4], "dtype": "float32"} for i in range(n)]
    with open(os.path.join(folder, "model.json"), "w") as f:
        json.dump({"format": "graph-model", "modelTopology": {"node": []},
                   "weightsManifest": [{"paths": paths, "weights": weights}]}, f)


def main(out):
    os.makedirs(out, exist_ok=True)
    safetensors(os.path.join(out, "big.safetensors"),
                [("layer.%d.weight" % i, "F32", [1024, 1536], 6 * MiB) for i in range(4)],
                pad_to=6 * 1024)
    for n in list(range(99988, 100001)) + list(range(131064, 131081)):
        safetensors(os.path.join(out, "edge-%d.safetensors" % n),
                    [("w", "F16", [8, 8], 128), ("b", "F32", [8], 32)], pad_to=n)
    vocab_gguf(os.path.join(out, "vocab.gguf"))
    torch_zip(os.path.join(out, "torch.pt"),
              [("conv.weight", [512, 4096]), ("fc.weight", [1024, 2048]),
               ("fc.bias", [2 * MiB])])
    npz(os.path.join(out, "arrays.npz"), [("a", [MiB]), ("b", [1024, 1024]), ("c", [MiB])])
    npz(os.path.join(out, "cdir.npz"),
        [("member_with_a_rather_long_name_%03d" % i, [64]) for i in range(900)])
    onnx_model(os.path.join(out, "model.onnx"),
               [("w%d" % i, [1024, 1024]) for i in range(4)])
    shards = os.path.join(out, "shards")
    os.makedirs(shards, exist_ok=True)
    weight_map, total = {}, 0
    for s in range(4):
        name = "model-%05d-of-00004.safetensors" % (s + 1)
        tensors = [("model.layers.%d.w%d" % (s, k), "BF16", [512, 512], 512 * 512 * 2)
                   for k in range(3)]
        safetensors(os.path.join(shards, name), tensors)
        for t in tensors:
            weight_map[t[0]] = name
            total += t[3]
    with open(os.path.join(shards, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    tflite_model(os.path.join(out, "model.tflite"), 16, MiB)
    tfjs_model(os.path.join(out, "tfjs"), 6, 3 * MiB, 4 * MiB)


if __name__ == "__main__":
    main(sys.argv[1])
