"""Helpers shared by the module's parts: bytes <-> str, status checks,
shapes in and out of the library."""
import codecs
import ctypes
import os

from . import _errors
from ._lib import Error as _CError, Shape, lib


def enc(s):
    """str or path-like -> bytes for the library (surrogates kept)."""
    if isinstance(s, bytes):
        return s
    return os.fsencode(s) if not isinstance(s, str) else s.encode("utf-8", "surrogateescape")


def dec(b):
    """A path from the library -> str (None stays None); bytes that are not
    UTF-8 are kept as surrogates (os.fsdecode's rule), so it opens again."""
    return None if b is None else b.decode("utf-8", "surrogateescape")


def _each_byte(e):
    return "\ufffd" * (e.end - e.start), e.end


codecs.register_error("tshape-text", _each_byte)


def text(b):
    """Text from a file (names, dtypes, notes, keys) -> str, as the CLI's
    JSON writes it: each byte that is not part of valid UTF-8 is U+FFFD."""
    return None if b is None else b.decode("utf-8", "tshape-text")


def path_text(p):
    """A path (str) as the CLI's JSON writes it."""
    return None if p is None else text(p.encode("utf-8", "surrogateescape"))


def check(status, err, path=None):
    """Raises the tshape.Error subclass of a failed call."""
    if status != 0:
        raise _errors.from_report(status, err, dec(path) if isinstance(path, bytes) else path)


def new_error():
    return _CError()


class CShape:
    """A ts_shape owned by Python: freed when collected."""
    __slots__ = ("s",)

    def __init__(self, dims=()):
        self.s = Shape()
        lib.ts_shape_init(ctypes.byref(self.s))
        if dims:
            dims = tuple(dims)
            arr = (ctypes.c_int64 * len(dims))(*dims)
            err = _CError()
            check(lib.ts_shape_assign(ctypes.byref(self.s), arr, len(dims), ctypes.byref(err)),
                  err)

    @property
    def ref(self):
        return ctypes.byref(self.s)

    def dims(self):
        return self.s.dims()

    def __del__(self):
        try:
            lib.ts_shape_free(ctypes.byref(self.s))
        except Exception:
            pass


def as_dims(shape):
    """A tuple of ints from a tuple, list, int or shape text ("(3,4)",
    "torch.Size([3, 4])"), parsed by the library's one shape parser."""
    if isinstance(shape, (str, bytes)):
        from ._shapes import parse
        return parse(shape)
    if isinstance(shape, int):
        return (shape,)
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError("a shape is a tuple of ints, not %r" % (shape,)) from None


def cshape(shape):
    return CShape(as_dims(shape))
