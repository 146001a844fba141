"""tshape.load: the arrays of any file tshape reads, as NumPy arrays,
without running a pickle.

Arrays stored as one contiguous run of a local file, C or Fortran order,
with a NumPy dtype, are zero-copy read-only views of one map of the file
(numpy.frombuffer over mmap); every other array is copied, bit for bit,
through the library (ts_array_read_raw: deflated .npz and torch.save zip
members, strided PyTorch views, ONNX typed fields and external data, HDF5
chunked or compressed datasets, remote files).
"""
import ctypes
import mmap as _mmap
import warnings

import numpy as np

from . import _errors
from ._lib import lib
from ._model import Model
from ._util import check, new_error

# NumPy has no dtype for these: raw bits of this width when ml_dtypes is
# not importable.
RAW_BITS = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8,
            "float8_e4m3fnuz": np.uint8, "float8_e5m2fnuz": np.uint8,
            "float8_e8m0fnu": np.uint8}
# Packed sub-byte integers: decoded to the smallest NumPy integer.
SUB_BYTE_INTS = {"int4": np.int8, "uint4": np.uint8, "int2": np.int8, "uint2": np.uint8}


class DtypeNote(UserWarning):
    """tshape.load returned arrays whose dtype NumPy does not have as raw
    bits (bfloat16 as uint16, float8 as uint8) or GGUF blocks as bytes;
    the message names them and what to do (install ml_dtypes, or pass
    dequantize=True)."""


class _Maps:
    """One read-only map per local member file, shared by the views."""

    def __init__(self):
        self.maps = {}

    def get(self, path):
        m = self.maps.get(path)
        if m is None:
            with open(path, "rb") as f:
                m = _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_READ)
            self.maps[path] = m
        return m


def _raw_read(model, i, nbytes_per, count, dt, shape, order="C"):
    """A copy of the elements through ts_array_read_raw, as dtype dt."""
    h = model._live()
    member = ctypes.c_size_t(0)
    p = lib.ts_model_array(h, i, ctypes.byref(member))
    f = lib.ts_model_file(h, member.value)
    out = np.empty(count * nbytes_per, dtype=np.uint8)
    err = new_error()
    n = p.contents.size
    check(lib.ts_array_read_raw(f, p, 0, n, out.ctypes.data_as(ctypes.c_void_p),
                                ctypes.byref(err)), err,
          lib.ts_model_file_path(h, member.value))
    return out.view(dt).reshape(shape, order=order)


def _decoded(model, i, as_dtype, numpy_out, shape):
    """Values decoded by ts_array_read (exact in as_dtype), cast to numpy_out."""
    h = model._live()
    member = ctypes.c_size_t(0)
    p = lib.ts_model_array(h, i, ctypes.byref(member))
    f = lib.ts_model_file(h, member.value)
    n = p.contents.size
    kinds = {"float64": (1, np.float64), "int64": (6, np.int64), "uint64": (11, np.uint64)}
    code, tmp_dt = kinds[as_dtype]
    tmp = np.empty(n, dtype=tmp_dt)
    err = new_error()
    check(lib.ts_array_read(f, p, 0, n, code, tmp.ctypes.data_as(ctypes.c_void_p),
                            ctypes.byref(err)), err, lib.ts_model_file_path(h, member.value))
    return tmp.astype(numpy_out).reshape(shape)


def read_array(model, i, *, mmap=True, dequantize=False, maps=None, notes=None):
    """Tensor i of model as a NumPy array (see load)."""
    a = model._array(i)
    shape = a.shape if a.shape is not None else (0,)
    if a.storage != "default":
        raise _errors.UnsupportedError(13, "array %r: MXNet %s storage: its dense values are "
                                       "not read here" % (a.name, a.storage), path=a.file)
    if a.dtype_name == "object" or a.nbytes is None:
        raise _errors.UnsupportedError(13, "array %r: an object array holds pickled Python "
                                       "objects, which tshape never unpickles" % a.name,
                                       path=a.file)
    dt = a.dtype
    raw_note = None
    if dt is None and a.dtype_name in RAW_BITS:
        dt = np.dtype(RAW_BITS[a.dtype_name]).newbyteorder(
            a.byteorder if a.byteorder in "<>" else "=")
        raw_note = "%s as raw %s bits" % (a.dtype_name, np.dtype(RAW_BITS[a.dtype_name]).name)
    if dt is None and a.dtype_name in SUB_BYTE_INTS:
        kind = "int64" if a.dtype_name.startswith("int") else "uint64"
        return _decoded(model, i, kind, SUB_BYTE_INTS[a.dtype_name], shape)
    if dt is None and a.block_size is not None and a.block_size > 1:
        if dequantize:
            return _decoded(model, i, "float64", np.float32, shape)
        # GGUF blocks as stored: the rows' bytes (as gguf-py's GGUFReader)
        if notes is not None:
            notes.append("%s: %s blocks as uint8 bytes (dequantize=True gives float32)"
                         % (a.name, a.dtype_name))
        rows = shape[:-1] if shape else ()
        last = shape[-1] if shape else 1
        width = last // a.block_size * a.block_bytes
        if last % a.block_size:
            raise _errors.UnsupportedError(13, "array %r: a row of %d elements is not whole "
                                           "%s blocks" % (a.name, last, a.dtype_name),
                                           path=a.file)
        return _view_or_copy(model, i, a, np.dtype(np.uint8), tuple(rows) + (width,),
                             a.nbytes, 1, mmap, maps, "C")
    if dt is None:
        raise _errors.DtypeError(15, "array %r: dtype %s has no NumPy dtype and cannot be "
                                 "loaded%s" % (a.name, a.dtype_name,
                                               "; install ml_dtypes" if a.dtype_name in
                                               ("float4_e2m1fn", "float6_e2m3fn",
                                                "float6_e3m2fn") else ""), path=a.file)
    if raw_note and notes is not None:
        notes.append("%s: %s (install ml_dtypes for its NumPy type)" % (a.name, raw_note))
    if dt.itemsize == 0 or a.size == 0:
        try:
            return np.zeros(shape, dtype=dt)
        except ValueError as e:  # a 0 dim beside dims whose product NumPy cannot hold
            raise _errors.UnsupportedError(13, "array %r: shape %s is not a NumPy array: %s"
                                           % (a.name, tuple(shape), e), path=a.file) from None
    return _view_or_copy(model, i, a, dt, shape, a.size, dt.itemsize, mmap, maps,
                         "F" if a.order == "F" else "C")


def _view_or_copy(model, i, a, dt, shape, count, per, mmap, maps, order):
    contiguous = a.c_contiguous if order == "C" else a.f_contiguous
    local = not lib.ts_is_url(a.file.encode("utf-8", "surrogateescape"))
    side = a.format == "onnx" and a.storage_key is not None  # data in a side file
    if (mmap and local and a.data_offset is not None and contiguous and not side
            and maps is not None and a.nbytes == count * per):
        try:
            m = maps.get(a.file)
        except (OSError, ValueError):
            m = None
        if m is not None and a.data_offset + a.nbytes <= len(m):
            v = np.frombuffer(m, dtype=dt, count=count if per == dt.itemsize else a.nbytes,
                              offset=a.data_offset)
            return v.reshape(shape, order=order)
    arr = _raw_read(model, i, per, count, dt, shape, "C")
    if order == "F":  # numpy.load gives Fortran-order arrays in F order
        arr = np.asfortranarray(arr)
    return arr


def load(path, names=None, *, mmap=True, dequantize=False, recursive=False, format=None):
    """Loads the arrays of a file, folder, index file or URL as NumPy arrays:
    a dict {name: numpy.ndarray} in the model's order, names as
    tshape.open gives them. It never executes a pickle: PyTorch checkpoints
    are read by tshape's restricted pickle machine, so it is a drop-in for
    torch.load(f, weights_only=True) + .numpy() for reading weights, for
    every format tshape reads.

    names       an iterable of names to load (default: all); an unknown
                name raises KeyError
    mmap        True: arrays stored contiguously in a local file are
                read-only zero-copy views of a map of it (they stay valid
                after the model is closed); False: every array is a copy
    dequantize  GGUF block types (q4_0, q8_0, ...) as float32, dequantized
                as ggml does; otherwise their blocks as stored, as uint8
                rows (gguf-py's layout)
    Dtypes: the file's own, bit for bit, byte order included (a '>f4' .npy
    array stays big-endian, as numpy.load gives it); Fortran-order arrays
    in Fortran order. bfloat16 and float8 are ml_dtypes types when ml_dtypes
    is importable, else raw uint16/uint8 bits; int4/uint4/int2/uint2 are
    int8/uint8 values. Arrays returned as bits or bytes are named in one
    tshape.DtypeNote warning.
    Raises tshape.Error subclasses: FileError, FormatError, TruncatedError
    (data that runs past the file), UnsupportedError (MXNet sparse storage,
    object arrays), DtypeError (a dtype NumPy cannot hold), and KeyError.
    """
    model = path if isinstance(path, Model) else Model(path, recursive=recursive,
                                                        format=format, metadata=False)
    try:
        if names is None:
            idx = range(len(model))
        else:
            idx = [model._index_of(n) for n in names]
        maps = _Maps() if mmap else None
        notes = []
        out = {}
        for i in idx:
            name = model._array(i).name
            if name in out:
                continue
            out[name] = read_array(model, i, mmap=mmap, dequantize=dequantize, maps=maps,
                                   notes=notes)
        if notes:
            warnings.warn("tshape.load: " + "; ".join(notes), DtypeNote, stacklevel=2)
        return out
    finally:
        if model is not path:
            model.close()
