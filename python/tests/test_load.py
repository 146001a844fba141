"""tshape.load equals numpy.load and torch.load(weights_only=True) bit for
bit (dtype, shape, order and bytes) on every file of the corpus and the
fixtures they read; arrays stored contiguously are read-only views."""
import json
import os
import struct
import warnings

import numpy as np
import pytest

import tshape
from conftest import corpus_files, fixture_files, have, rel

FILES = [rel(f) for f in fixture_files() + corpus_files()]
NUMPY_FILES = [f for f in FILES if f.endswith((".npy", ".npz"))]
TORCH_FILES = [f for f in FILES if f.endswith((".pt", ".pth", ".bin", ".ckpt"))]
SAFETENSORS_FILES = [f for f in FILES if f.endswith(".safetensors")]


def same(ours, ref, what):
    """Bit for bit: dtype, shape, memory order, and the bytes."""
    assert ours.dtype == ref.dtype, "%s: dtype %s, expected %s" % (what, ours.dtype, ref.dtype)
    assert ours.shape == ref.shape, "%s: shape %s, expected %s" % (what, ours.shape, ref.shape)
    if ref.ndim > 1 and ref.size > 1:
        assert ours.flags.f_contiguous == ref.flags.f_contiguous, what
    assert ours.tobytes() == ref.tobytes(), "%s: the bytes differ" % what


def numpy_arrays(path):
    """numpy.load's arrays, without pickles, by tshape's names; None when
    NumPy refuses the file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except AttributeError:  # a .npy: an array, not an NpzFile
        a = np.load(path, allow_pickle=False)
        return {os.path.splitext(os.path.basename(path))[0]: a}
    except Exception:
        return None


def tshape_or_none(path, **kw):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tshape.DtypeNote)
            return tshape.load(path, **kw)
    except tshape.Error:
        return None


@pytest.mark.parametrize("path", NUMPY_FILES)
@pytest.mark.parametrize("mmap", [True, False])
def test_load_equals_numpy(path, mmap):
    ref = numpy_arrays(path)
    ours = tshape_or_none(path, mmap=mmap)
    if ref is None:
        return  # NumPy refuses it (damaged, or pickled objects): nothing to compare
    if ours is None:
        with pytest.raises(tshape.Error) as e:
            tshape.load(path)
        # tshape is stricter than NumPy on purpose (README, "Where tshape
        # differs"): it refuses what its reader refuses, naming why
        assert tshape.open.__name__ and e.value.message
        pytest.skip("tshape refuses what numpy.load reads: %s" % e.value)
    assert list(ours) == list(ref)
    for k in ref:
        same(ours[k], ref[k], "%s:%s" % (path, k))
        if not mmap:
            assert ours[k].flags.writeable


def test_numpy_files_compared():
    assert len(NUMPY_FILES) > 50


def test_views_are_zero_copy():
    arrays = tshape.load("tests/fixtures/values/f4.npy")
    a = arrays["f4"]
    assert not a.flags.writeable and not a.flags.owndata
    with pytest.raises(ValueError):
        a[0] = 1
    b = tshape.load("tests/fixtures/values/f4.npy", mmap=False)["f4"]
    assert b.flags.writeable and not np.shares_memory(a, b)
    # a deflated member is a copy
    c = tshape.load("tests/fixtures/values/deflated.npz", names=["a"])
    assert list(c) == ["a"] and c["a"].flags.writeable


def test_names_and_errors():
    with pytest.raises(KeyError, match="no tensor 'b'"):
        tshape.load("tests/fixtures/values/deflated.npz", names=["b"])
    with pytest.raises(tshape.UnsupportedError, match="never unpickles"):
        tshape.load("tests/fixtures/npy/object.npy")
    with pytest.raises(tshape.FileError):
        tshape.load("tests/fixtures/no-such-file.npy")


def safetensors_reference(path):
    """The safetensors format read as safetensors.safe_open + numpy would:
    the JSON header, then each tensor's bytes."""
    dtypes = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8",
              "I32": "<i4", "I16": "<i2", "I8": "i1", "U64": "<u8", "U32": "<u4",
              "U16": "<u2", "U8": "u1", "BOOL": "?", "F8_E4M3": "u1", "F8_E5M2": "u1",
              "C64": "<c8"}
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for k, v in header.items():
        if k == "__metadata__" or v["dtype"] not in dtypes:
            continue
        b, e = v["data_offsets"]
        try:
            out[k] = np.frombuffer(data[b:e], dtype=dtypes[v["dtype"]]).reshape(v["shape"])
        except ValueError:  # NumPy cannot hold it (a 0 dim beside a huge one)
            out[k] = None

    return out


@pytest.mark.parametrize("path", SAFETENSORS_FILES)
def test_load_equals_safetensors(path):
    ours = tshape_or_none(path)
    if ours is None:
        return
    ref = safetensors_reference(path)
    for k, r in ref.items():
        if r is None:  # tshape refuses it too, naming NumPy's limit
            assert ours is None or k not in ours
            continue
        same(ours[k], r, "%s:%s" % (path, k))


def test_bfloat16_bits_and_note():
    if have("ml_dtypes"):
        pytest.skip("ml_dtypes is importable: bfloat16 is its type")
    with pytest.warns(tshape.DtypeNote, match="head.weight: bfloat16 as raw uint16 bits"):
        arrays = tshape.load("examples/model.safetensors")
    ref = safetensors_reference("examples/model.safetensors")
    same(arrays["head.weight"], ref["head.weight"], "head.weight")


def test_gguf_blocks_and_dequantize():
    path = "tests/fixtures/values/quant.gguf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tshape.DtypeNote)
        raw = tshape.load(path, names=["q4_0", "q8_0"])
    with tshape.open(path) as m:
        a = m["q4_0"]
        assert raw["q4_0"].dtype == np.uint8 and raw["q4_0"].shape == (2, 18)
        with open(path, "rb") as f:
            f.seek(a.data_offset)
            assert raw["q4_0"].tobytes() == f.read(36)
    deq = tshape.load(path, names=["q4_0"], dequantize=True)["q4_0"]
    assert deq.dtype == np.float32 and deq.shape == (2, 32)
    st = tshape.stats(path, filter="q4_0").records[0]
    assert float(deq.min()) == st["min"] and float(deq.max()) == st["max"]


# ---- PyTorch -----------------------------------------------------------------

HAVE_TORCH = have("torch")


def flatten(obj, prefix=""):
    """torch.load's dense tensors by the names tshape gives them: dict keys
    (strings and ints) and list indices joined with '.'; tensors under other
    keys (tuples) and sparse layouts, which .numpy() cannot give, are left
    out."""
    import torch as t
    out = {}
    if isinstance(obj, t.Tensor):
        if obj.layout == t.strided:
            out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, (str, int)):
                out.update(flatten(v, "%s.%s" % (prefix, k) if prefix else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(flatten(v, "%s.%d" % (prefix, i) if prefix else str(i)))
    return out


def torch_numpy(t):
    import torch
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


@pytest.mark.skipif(not HAVE_TORCH, reason="/usr/bin/python3 has no torch")
@pytest.mark.parametrize("path", TORCH_FILES)
def test_load_equals_torch(path):
    import torch
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:
        return  # torch refuses it (damaged, or not weights): nothing to compare
    ref = flatten(obj)
    if not ref:
        return
    ours = tshape_or_none(path)
    assert ours is not None, "torch.load reads %s, tshape.load refuses it" % path
    if len(ref) == 1 and len(ours) == 1:  # a lone tensor: named after the file
        ref = {next(iter(ours)): next(iter(ref.values()))}
    for k, t in ref.items():
        assert k in ours, "%s: tensor %s missing (tshape has %s)" % (path, k, list(ours)[:8])
        r = torch_numpy(t)
        o = ours[k]
        assert o.shape == r.shape and o.tobytes() == np.ascontiguousarray(r).tobytes(), \
            "%s:%s differs" % (path, k)
        assert o.dtype.itemsize == r.dtype.itemsize


@pytest.mark.skipif(not HAVE_TORCH, reason="/usr/bin/python3 has no torch")
def test_torch_files_compared():
    """torch.load reads enough of them for the comparison to mean something
    (views, dtypes with bfloat16, big-endian storages, legacy files)."""
    import warnings as w
    import torch
    n = 0
    for path in TORCH_FILES:
        try:
            with w.catch_warnings():
                w.simplefilter("ignore")
                n += bool(flatten(torch.load(path, map_location="cpu", weights_only=True)))
        except Exception:
            pass
    assert n >= 20
