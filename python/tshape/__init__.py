"""tshape: tensor shapes and saved model files, from Python.

A thin module over libtshape (the C library of the `tshape` command):
every answer is the library's, so Python, C and the command line agree.

    import tshape
    with tshape.open("model/") as m:                # files, folders, URLs
        for a in m:                                 # Array records
            print(a.name, a.shape, a.dtype, a.role)
        print(m.summary(top=3, group=True)["total"]["parameters"])
    arrays = tshape.load("pytorch_model.bin")       # never runs a pickle
    tshape.broadcast((8, 1, 6), (7, 1))             # (8, 7, 6)
    tshape.conv_output_shape((1, 3, 224, 224), 64, 3, stride=2, padding=1)

Reading: open (Model, Array), load, stats, diff, scan, verify, convert.
Shapes: size, ndim, parse, format, broadcast, reshape, transpose, squeeze,
expand_dims, moveaxis, flatten, flat2d, flat3d, prod, strides,
is_contiguous, ravel_index, unravel_index, einsum, rearrange, reduce,
repeat, conv_output_shape, conv_transpose_output_shape, pool_output_shape,
matmul, linear, concat, stack.
Errors: tshape.Error and its subclasses (code, message, offset, column,
entry, path).

The library is the one named by TSHAPE_LIBRARY, else the copy installed
with this package, else the system's libtshape.so.0 (Debian: libtshape0).
"""
from ._errors import (AxisError, BroadcastError, CanceledError, DtypeError, Error,
                      FileError, FormatError, IndexOutOfRangeError, InvalidArgumentError,
                      LayoutError, LimitError, NdimError, NoMemoryError, ParseError,
                      SizeError, SizeOverflowError, TruncatedError, UnsupportedError,
                      ValueOutOfRangeError)
from ._lib import lib as _lib
from ._model import Array, Issue, Model, open
from ._load import DtypeNote, load
from ._commands import (DiffResult, ScanResult, StatsResult, VerifyResult, convert, diff, scan,
                        stats, verify)
from ._shapes import (broadcast, concat, conv_output_shape, conv_transpose_output_shape,
                      einsum, expand_dims, flat2d, flat3d, flatten, format, is_contiguous,
                      linear, matmul, moveaxis, ndim, parse, pool_output_shape, prod,
                      ravel_index, rearrange, reduce, repeat, reshape, size, squeeze, stack,
                      strides, transpose, unravel_index)

__version__ = "0.1.0"


def library_version():
    """The version of the loaded libtshape ("0.1.0")."""
    return _lib.ts_version().decode()


def library_path():
    """The path (or soname) libtshape was loaded from."""
    return _lib.path


__all__ = [
    "open", "load", "stats", "diff", "scan", "verify", "convert", "Model", "Array", "Issue",
    "DiffResult", "ScanResult", "StatsResult", "VerifyResult", "DtypeNote",
    "size", "ndim", "parse", "format", "broadcast", "reshape", "transpose", "squeeze",
    "expand_dims", "moveaxis", "flatten", "flat2d", "flat3d", "prod", "strides",
    "is_contiguous", "ravel_index", "unravel_index", "einsum", "rearrange", "reduce",
    "repeat", "conv_output_shape", "conv_transpose_output_shape", "pool_output_shape",
    "matmul", "linear", "concat", "stack",
    "Error", "NoMemoryError", "InvalidArgumentError", "ParseError", "SizeOverflowError",
    "AxisError", "NdimError", "SizeError", "BroadcastError", "LayoutError", "FileError",
    "FormatError", "TruncatedError", "UnsupportedError", "LimitError", "DtypeError",
    "IndexOutOfRangeError", "ValueOutOfRangeError", "CanceledError",
    "library_version", "library_path",
]
