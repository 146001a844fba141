"""tshape.open: a file, folder, index file or URL read as a model
(ts_model_open), its tensors as Array records and its metadata."""
import ctypes
import json
import weakref

import numpy as np

from . import _errors
from ._lib import ElementSize, ModelOptions, lib, open_options
from ._util import check, dec, enc, new_error, path_text, text

c_int64 = ctypes.c_int64
DTYPE_UNKNOWN = -1  # TS_DTYPE_UNKNOWN

STORAGE_NAMES = {0: "default", 1: "row_sparse", 2: "csr"}

# NumPy has no dtype for these; ml_dtypes (when importable) does.
ML_DTYPES = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
             "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
             "float6_e3m2fn", "int4", "uint4", "int2", "uint2")

try:  # optional: bfloat16 and float8 as NumPy dtypes
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the machine
    _ml_dtypes = None


def numpy_dtype(dtype_name, descr, byteorder="<"):
    """The NumPy dtype of an array: from its NumPy descr when NumPy has the
    dtype ("<f4", "|b1", a structured descr), else the ml_dtypes type of its
    name (bfloat16, float8_*) when ml_dtypes is importable, else None."""
    if descr:
        if descr.startswith("["):
            import ast
            return np.dtype(ast.literal_eval(descr))
        return np.dtype(descr)
    if _ml_dtypes is not None and dtype_name in ML_DTYPES and hasattr(_ml_dtypes, dtype_name):
        dt = np.dtype(getattr(_ml_dtypes, dtype_name))
        return dt.newbyteorder(byteorder) if byteorder in "<>" and dt.itemsize > 1 else dt
    return None


class Array:
    """One tensor of a model, as `tshape --json info` reports it.

    Attributes (units: size in elements, nbytes/itemsize/offsets in bytes,
    strides in elements, dims in elements, shapes in NumPy order):
      name          the tensor's name in the model (a .npy file: its path
                    from the folder without extension)
      file          the member file it is in (its path)
      format, version   the member's format ("npy", "safetensors", ...) and
                    version ("1.0", or None)
      dtype         the NumPy dtype, or None when NumPy has none (bfloat16,
                    float8 without ml_dtypes, GGUF blocks, int4)
      dtype_name    tshape's name of the dtype ("float32", "bfloat16",
                    "q4_0", "datetime64[ns]")
      descr, format_dtype   NumPy's descr ("<f4", or None) and the format's
                    own spelling ("F32", "<f4", "Q4_0")
      shape         a tuple of ints, or None for an HDF5 null dataspace
      ndim, size, nbytes (None when unknown: a pickled object array)
      itemsize, bits, block_size, block_bytes   the element size
                    (ts_array_element_size; None where the record has null)
      byteorder     '<', '>', '|' or '='
      ne            GGUF: ggml's ne (innermost first, ts_array_ggml_ne), else None
      order         'C' or 'F' as the strides say (both: the format's flag),
                    'strided' for a view that is neither; c_contiguous,
                    f_contiguous (NumPy's rule)
      flat2d        mshadow's FlatTo2D shape, or None
      strides       element strides (a tuple), storage_offset (elements)
      data_offset   absolute byte offset of the data in the file, or None
                    (compressed, not addressable)
      storage, storage_shape   MXNet sparse storage ("default") and shape
      storage_key   the PyTorch storage a view shares, or None
      device, note  the saved device ("cuda:0"), a fact for humans
      role          "parameter", "buffer" or "optimizer_state"
                    (ts_tensor_role: what torch's model.parameters() counts;
                    of the dequantized dtype for quantised TFLite/TF.js data)
    ``to_dict()`` gives the record of `tshape --json info` exactly.
    """

    __slots__ = ("name", "file", "format", "version", "ne", "dtype", "dtype_name", "descr",
                 "format_dtype", "shape", "ndim", "size", "nbytes", "itemsize", "bits",
                 "block_size", "block_bytes", "byteorder", "order", "c_contiguous",
                 "f_contiguous", "flat2d", "data_offset", "storage", "storage_shape",
                 "device", "strides", "storage_offset", "storage_key", "note", "role",
                 "index", "member", "_model", "_p", "_name_in_file", "__weakref__")

    def __repr__(self):
        shape = "none" if self.shape is None else "(%s)" % ",".join(
            str(d) for d in self.shape) + ("," if len(self.shape) == 1 else "")
        return "<tshape.Array %s %s %s>" % (self.name, shape, self.dtype_name)

    # Fields are read from the library's ts_array when first asked for, in
    # groups (listing a million tensors' names costs no dtype or layout
    # work); closing the model reads every field of the records made.
    def __getattr__(self, key):
        fill = _FILLERS.get(key)
        if fill is None or key.startswith("__"):
            raise AttributeError(key)
        if self._p is None:
            raise ValueError("tshape: the model of %r was closed before its %s was read"
                             % (self.name, key))
        fill(self)
        return object.__getattribute__(self, key)

    def _materialize(self):
        """Reads the fields not read yet (the model is about to be closed)."""
        if self._p is not None:
            for fill in _FILL_ORDER:
                if not _has(self, _FILL_FIRST[fill]):
                    fill(self)
            self._p = None

    def to_dict(self):
        """The record of `tshape --json info` for this tensor (man page, JSON
        RECORDS), key for key in the same order."""
        return {
            "file": path_text(self.file), "format": self.format, "version": self.version,
            "name": self._name_in_file,
            "shape": None if self.shape is None else list(self.shape),
            "ndim": self.ndim, "ne": None if self.ne is None else list(self.ne),
            "dtype": self.dtype_name, "descr": self.descr,
            "format_dtype": self.format_dtype, "itemsize": self.itemsize, "bits": self.bits,
            "block_size": self.block_size, "block_bytes": self.block_bytes,
            "byteorder": self.byteorder, "size": self.size, "nbytes": self.nbytes,
            "order": self.order, "c_contiguous": self.c_contiguous,
            "f_contiguous": self.f_contiguous,
            "flat2d": None if self.flat2d is None else list(self.flat2d),
            "data_offset": self.data_offset, "storage": self.storage,
            "storage_shape": None if self.storage_shape is None else list(self.storage_shape),
            "device": self.device,
            "strides": None if self.strides is None else list(self.strides),
            "storage_offset": self.storage_offset, "storage_key": self.storage_key,
            "note": self.note}

    def read(self, *, mmap=True, dequantize=False):
        """This tensor's values as a NumPy array (see tshape.load)."""
        from ._load import read_array
        return read_array(self._model, self.index, mmap=mmap, dequantize=dequantize)


def _fill_file(r):
    m = r._model._handle
    f = lib.ts_model_file(m, r.member)
    r.file = dec(lib.ts_model_file_path(m, r.member))
    r.format = dec(lib.ts_format_name(lib.ts_file_format(f)))
    v = dec(lib.ts_file_version(f))
    r.version = v if v else None
    ne = (c_int64 * 4)()
    n = ctypes.c_int(0)
    r.ne = tuple(ne[:n.value]) if lib.ts_array_ggml_ne(f, r._p, ne, ctypes.byref(n),
                                                       None) == 0 else None


def _fill_basic(r):
    a = r._p.contents
    null = bool(a.null_shape)
    r.shape = None if null else a.shape.dims()
    r.ndim = None if null else a.shape.ndim
    r.dtype_name = text(a.dtype_name)
    r.descr = text(a.descr)
    r.format_dtype = text(a.format_dtype)
    r.byteorder = a.byteorder.decode("latin-1")
    r.size = a.size
    r.nbytes = a.nbytes if a.nbytes >= 0 else None
    r.data_offset = a.data_offset if a.data_offset >= 0 else None
    r.storage = STORAGE_NAMES.get(a.storage, "unknown")
    r.storage_shape = a.storage_shape.dims() if a.storage != 0 else None
    r.device = text(a.device)
    r.strides = None if null else a.strides.dims()
    r.storage_offset = a.storage_offset
    r.storage_key = text(a.storage_key)
    r.note = text(a.note)
    r._name_in_file = text(a.name)


_DTYPES = {}


def _fill_dtype(r):
    key = (r.dtype_name, r.descr, r.byteorder)
    dt = _DTYPES.get(key, False)
    if dt is False:
        try:
            dt = numpy_dtype(*key)
        except (TypeError, ValueError, SyntaxError):
            dt = None
        _DTYPES[key] = dt
    r.dtype = dt


def _fill_size(r):
    r.itemsize, r.bits, r.block_size, r.block_bytes = _element_size(r._p)


def _fill_layout(r):
    a = r._p.contents
    strides = r.strides or ()
    sarr = (ctypes.c_int64 * max(len(strides), 1))(*strides)
    r.c_contiguous = bool(lib.ts_is_c_contiguous(ctypes.byref(a.shape), sarr, 1))
    r.f_contiguous = bool(lib.ts_is_f_contiguous(ctypes.byref(a.shape), sarr, 1))
    c, f = r.c_contiguous, r.f_contiguous
    r.order = ("F" if a.fortran_order else "C") if c and f else "C" if c else "F" if f \
        else "strided"
    if a.null_shape:
        r.flat2d = None
    else:
        f2 = (ctypes.c_int64 * 2)()
        r.flat2d = tuple(f2) if lib.ts_shape_flat2d(ctypes.byref(a.shape), f2, None) == 0 \
            else None


def _fill_role(r):
    a = r._p.contents
    dtype = a.dequantized_dtype if a.dequantized_dtype != DTYPE_UNKNOWN else a.dtype
    r.role = text(lib.ts_role_name(lib.ts_tensor_role(enc(r.name), dtype)))


_FILLERS, _FILL_FIRST, _FILL_ORDER = {}, {}, []
for _fill, _keys in ((_fill_file, ("file", "format", "version", "ne")),
                     (_fill_basic, ("shape", "ndim", "dtype_name", "descr", "format_dtype",
                                    "byteorder", "size", "nbytes", "data_offset",
                                    "storage", "storage_shape", "device", "strides",
                                    "storage_offset", "storage_key", "note", "_name_in_file")),
                     (_fill_dtype, ("dtype",)),
                     (_fill_size, ("itemsize", "bits", "block_size", "block_bytes")),
                     (_fill_layout, ("c_contiguous", "f_contiguous", "flat2d", "order")),
                     (_fill_role, ("role",))):
    for _k in _keys:
        _FILLERS[_k] = _fill
    _FILL_FIRST[_fill] = _keys[0]
    _FILL_ORDER.append(_fill)


def _has(obj, slot):
    try:
        object.__getattribute__(obj, slot)
        return True
    except AttributeError:
        return False


def make_array(model, i):
    """The Array record of tensor i of a model (fields read on demand)."""
    m = model._handle
    member = ctypes.c_size_t(0)
    r = Array.__new__(Array)
    r._p = lib.ts_model_array(m, i, ctypes.byref(member))
    r._model = model
    r.index = i
    r.member = member.value
    r.name = text(lib.ts_model_array_name(m, i))
    return r


def _element_size(p):
    e = ElementSize()
    lib.ts_array_element_size(p, ctypes.byref(e))
    return tuple(v if v >= 0 else None for v in (e.itemsize, e.bits, e.block_size,
                                                 e.block_bytes))


class Issue:
    """What is wrong with a model (ts_model_issue): ``kind`` (a word:
    "shard_missing", "file_error", "tensor_missing", "tensor_duplicate",
    "tensor_moved", "tensor_unlisted", "shard_unlisted"), ``is_error``,
    ``path``, ``name`` and a one-line ``message``."""
    KINDS = {1: "shard_missing", 2: "file_error", 3: "tensor_missing", 4: "tensor_duplicate",
             5: "tensor_moved", 6: "tensor_unlisted", 7: "shard_unlisted",
             8: "folder_repeated"}
    __slots__ = ("kind", "is_error", "path", "name", "message")

    def __init__(self, c):
        self.kind = self.KINDS.get(c.kind, "unknown")
        self.is_error = bool(c.is_error)
        self.path = dec(c.path)
        self.name = text(c.name)
        self.message = text(c.message)

    def __repr__(self):
        return "<tshape.Issue %s: %s>" % ("error" if self.is_error else "warning",
                                          self.message)


def _json_value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


class Model:
    """A model: a file, a folder of files (with or without an index), an
    index file (*.index.json) or a URL (http://, https://, hf://, s3://),
    opened with tshape.open. Its tensors are Array records:

        len(m)          the number of tensors
        iter(m)         the tensors in order (members in order, each
                        member's arrays in file order)
        m["name"]       the tensor of that name (KeyError otherwise)
        m.names         the tensors' names, in order
        m.files         the member files' paths
        m.index         the index file's path, or None
        m.issues        what is wrong with it (missing shards, ...): Issue
        m.metadata      its metadata as Python values (safetensors
                        __metadata__, GGUF key/values, the non-tensor values
                        of a PyTorch checkpoint, config.json of a folder)
        m.summary(...)  totals, roles, the largest tensors, layer groups

    Only headers are read: opening a 400 MB checkpoint reads kilobytes.
    Close it with m.close() or use it as a context manager; Array records
    and the arrays tshape.load returned stay valid after closing.
    """

    def __init__(self, path, *, recursive=False, format=None, metadata=True, max_fetch=None,
                 stored_order=False):
        self.path = str(path) if not isinstance(path, str) else path
        self._handle = None
        self._arrays = weakref.WeakValueDictionary()  # the records users still hold
        self._by_name = None
        fmt = ctypes.c_int(0)
        err = new_error()
        if format is not None:
            check(lib.ts_format_from_name(enc(format), ctypes.byref(fmt), ctypes.byref(err)),
                  err)
        self._oo = open_options(format=fmt.value, want_metadata=1 if metadata else 0,
                                gguf_stored_order=1 if stored_order else 0,
                                max_fetch=int(max_fetch or 0))
        mo = ModelOptions()
        mo.struct_size = ctypes.sizeof(ModelOptions)
        mo.recursive = 1 if recursive else 0
        mo.open = ctypes.pointer(self._oo)
        h = ctypes.c_void_p()
        check(lib.ts_model_open(enc(self.path), ctypes.byref(mo), ctypes.byref(h),
                                ctypes.byref(err)), err, self.path)
        self._handle = h

    # ---- life ----------------------------------------------------------------
    def close(self):
        """Closes every member file. The Array records made so far keep
        every field (they are read now), and the arrays tshape.load gave
        stay valid (their maps are their own)."""
        if self._handle:
            for a in list(self._arrays.values()):
                a._materialize()
            lib.ts_model_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _live(self):
        if not self._handle:
            raise ValueError("tshape: the model %s is closed" % self.path)
        return self._handle

    # ---- tensors -------------------------------------------------------------
    def __len__(self):
        return lib.ts_model_count(self._live())

    def __getitem__(self, key):
        if isinstance(key, int):
            n = len(self)
            if key < 0:
                key += n
            if not 0 <= key < n:
                raise IndexError("tensor index %d out of range for %d tensors" % (key, n))
            return self._array(key)
        i = self._index_of(key)
        return self._array(i)

    def __contains__(self, name):
        self._names_map()
        return name in self._by_name

    def __iter__(self):
        for i in range(len(self)):
            yield self._array(i)

    def __repr__(self):
        state = "" if self._handle else " closed"
        n = len(self) if self._handle else 0
        return "<tshape.Model %s: %d tensors%s>" % (self.path, n, state)

    def _array(self, i):
        a = self._arrays.get(i)
        if a is None:
            a = self._arrays[i] = make_array(self, i)
        return a

    def _names_map(self):
        if self._by_name is None:
            h = self._live()
            by = {}
            for i in range(lib.ts_model_count(h)):
                by.setdefault(text(lib.ts_model_array_name(h, i)), i)
            self._by_name = by
        return self._by_name

    def _index_of(self, name):
        try:
            return self._names_map()[name]
        except KeyError:
            import difflib
            close = difflib.get_close_matches(name, list(self._by_name), n=3)
            hint = "; did you mean %s?" % ", ".join(repr(c) for c in close) if close else ""
            raise KeyError("%s has no tensor %r%s" % (self.path, name, hint)) from None

    @property
    def names(self):
        """The tensors' names, in order."""
        h = self._live()
        return [text(lib.ts_model_array_name(h, i)) for i in range(lib.ts_model_count(h))]

    def keys(self):
        return self.names

    @property
    def files(self):
        """The member files' paths (the folder's path joined with their names)."""
        h = self._live()
        return [dec(lib.ts_model_file_path(h, i)) for i in range(lib.ts_model_file_count(h))]

    @property
    def index(self):
        """The index file's path, or None."""
        return dec(lib.ts_model_index(self._live()))

    @property
    def issues(self):
        """The model's issues (Issue), index problems first, then members."""
        h = self._live()
        return [Issue(lib.ts_model_issue_at(h, i).contents)
                for i in range(lib.ts_model_issue_count(h))]

    @property
    def complete(self):
        """False when the model has errors (a missing shard, a tensor the
        index names that no shard has, a member that cannot be read)."""
        return lib.ts_model_error_count(self._live()) == 0

    # ---- metadata --------------------------------------------------------------
    @property
    def metadata_entries(self):
        """The model's metadata as `tshape --json info --metadata` lists a
        folder's (the "entries" of its model_metadata record): dicts with
        source ("config", "index" or "member"), path, key, value (JSON
        text) and files (how many members hold that key and value)."""
        h = self._live()
        out = []
        src = {1: "config", 2: "index", 3: "member"}
        for i in range(lib.ts_model_metadata_count(h)):
            e = lib.ts_model_metadata_at(h, i).contents
            out.append({"source": src.get(e.source, "unknown"), "path": path_text(dec(e.path)),
                        "key": text(e.key), "value": _json_value(text(e.value)),
                        "files": e.files})
        return out

    @property
    def metadata(self):
        """The metadata as a dict of Python values (JSON values decoded;
        non-finite floats are the strings "nan", "inf", "-inf"). A key whose
        value differs between members maps to a dict {member: value}."""
        h = self._live()
        if lib.ts_model_file_count(h) == 1 and not self.index:
            f = lib.ts_model_file(h, 0)
            out = {}
            key, val = ctypes.c_char_p(), ctypes.c_char_p()
            for i in range(lib.ts_file_metadata_count(f)):
                if lib.ts_file_metadata(f, i, ctypes.byref(key), ctypes.byref(val)):
                    if val.value is None:
                        raise _errors.FileError(10, "metadata %r cannot be read"
                                                % dec(key.value), path=self.path)
                    out[text(key.value)] = _json_value(text(val.value))
            return out
        out, per = {}, {}
        for e in self.metadata_entries:
            per.setdefault(e["key"], []).append(e)
        for key, es in per.items():
            if len(es) == 1 or all(x["value"] == es[0]["value"] for x in es):
                out[key] = es[0]["value"]
            else:
                out[key] = {x["path"]: x["value"] for x in es}
        return out

    # ---- summary ----------------------------------------------------------------
    def summary(self, *, top=5, group=False, tensors=False, filter=None, exclude=None,
                memory=False, context=0, batch=0, kv_dtype=None):
        """The model summary as `tshape --json info --summary` gives it for a
        folder (with --top N, --group, --tensors, --memory --context --batch
        --kv-dtype): a dict with model, index, total (files, sums of
        tensors/size/nbytes per role and dtype), identity (see identify),
        memory (see memory; None unless memory=True), largest, groups,
        tensors and errors; computed by the library's ts_summary
        (parameters as torch's model.parameters() counts them)."""
        from ._summary import model_summary
        mo = dict(context=context, batch=batch, kv_dtype=kv_dtype) if memory else None
        return model_summary(self, top=top, group=group, tensors=tensors, filter=filter,
                             exclude=exclude, memory_options=mo)

    def identify(self):
        """What this checkpoint is (ts_model_identify, rule table
        src/formats/family.c): a dict with kind ("model", "training
        checkpoint", ...), family and the evidence for it, layers, hidden,
        vocab, heads, kv_heads (None when not known), the "identity" of
        `tshape --json info --summary`."""
        from ._summary import identity
        return identity(self)

    def memory(self, *, context=0, batch=0, kv_dtype=None):
        """The memory to load this model for inference (ts_model_memory):
        exact weights, and the KV cache for context tokens (0: the model's)
        and batch sequences (0: 1) in kv_dtype (None: config.json's
        torch_dtype, else float16; or a quantised cache type of llama.cpp:
        "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1") from config.json
        or GGUF keys; the
        "memory" of `tshape --json info --memory`."""
        from ._summary import memory
        return memory(self, context=context, batch=batch, kv_dtype=kv_dtype)

    def fingerprint(self, *, values=False, threads=0):
        """The checkpoint's identity as `tshape --json id` gives it
        (ts_model_fingerprint): the SHA-256 of the canonical listing of
        names, dtypes and shapes (values=True: and of each tensor's data in
        C order, little-endian), as a dict with id, path, tensors, values,
        nbytes, errors."""
        from ._lib import Fingerprint, FingerprintOptions
        h = self._live()
        o = FingerprintOptions()
        o.struct_size = ctypes.sizeof(FingerprintOptions)
        o.values = 1 if values else 0
        o.nthreads = threads
        fp = Fingerprint()
        err = new_error()
        check(lib.ts_model_fingerprint(h, ctypes.byref(o), ctypes.byref(fp), ctypes.byref(err)),
              err, self.path)
        return {"id": fp.sha256.decode("ascii"), "path": self.path, "tensors": fp.tensors,
                "values": bool(fp.values), "nbytes": fp.nbytes,
                "errors": lib.ts_model_error_count(h)}


def open(path, *, recursive=False, format=None, metadata=True, max_fetch=None,
         stored_order=False):
    """Opens a file, folder, index file or URL as a Model (headers only).

    path          a local path (file, folder, *.index.json) or a URL:
                  http(s)://, hf://ORG/NAME[@REV][/FILE], s3://BUCKET/KEY
                  (read with HTTP range requests: only the headers are
                  fetched; tshape(1) REMOTE FILES)
    recursive     folders without an index: their subfolders too
    format        force a format ("npy", "safetensors", "tshape64", ...)
    metadata      collect metadata (default True)
    max_fetch     remote files: bytes the headers may fetch (default 64 MiB)
    stored_order  GGUF: dims as stored (innermost first)
    Raises tshape.Error subclasses: FileError (cannot open/fetch),
    FormatError and TruncatedError (a file that is not valid: offset and
    entry say where), UnsupportedError, LimitError, ...
    """
    return Model(path, recursive=recursive, format=format, metadata=metadata,
                 max_fetch=max_fetch, stored_order=stored_order)
