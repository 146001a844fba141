"""Errors: one exception class per status code of libtshape (ts_status).

Every error the library reports is raised as a subclass of ``tshape.Error``
carrying what the library's ts_error holds: ``code`` (the ts_status
number), ``code_name`` ("TS_ERR_FORMAT"), ``message`` (what was expected,
what was found and where), ``offset`` (the byte offset in the file, or
None), ``column`` (1-based column in text, or None), ``entry`` (the index
of the entry or argument concerned, or None) and ``path`` (the file or
model named, when there is one). Each class also derives from the Python
exception users would catch for it (ValueError, OSError, IndexError,
MemoryError, ...), so ``except ValueError`` keeps working.
"""


class Error(Exception):
    """An error reported by libtshape; see the module's docstring."""

    code = None
    code_name = "TS_ERR"

    def __init__(self, code, message, offset=None, column=None, entry=None, path=None):
        self.code = code
        self.message = message
        self.offset = offset
        self.column = column
        self.entry = entry
        self.path = path
        text = "%s: %s" % (path, message) if path else message
        Exception.__init__(self, text)

    def __str__(self):
        return "%s: %s" % (self.path, self.message) if self.path else self.message

    def __reduce__(self):
        return (type(self), (self.code, self.message, self.offset, self.column, self.entry,
                             self.path))


def _cls(name, code, code_name, bases, doc):
    return type(name, (Error,) + bases, {"__doc__": doc, "code_name": code_name,
                                        "__module__": "tshape"})


NoMemoryError = _cls("NoMemoryError", 1, "TS_ERR_NOMEM", (MemoryError,),
                     "An allocation failed (TS_ERR_NOMEM).")
InvalidArgumentError = _cls("InvalidArgumentError", 2, "TS_ERR_INVALID_ARG", (ValueError,),
                            "A bad argument to a library call (TS_ERR_INVALID_ARG).")
ParseError = _cls("ParseError", 3, "TS_ERR_PARSE", (ValueError,),
                  "Malformed text: a shape, axis list or pattern (TS_ERR_PARSE); "
                  "``column`` says where.")
SizeOverflowError = _cls("SizeOverflowError", 4, "TS_ERR_OVERFLOW", (OverflowError,),
                         "A size, product or offset does not fit in int64 (TS_ERR_OVERFLOW).")
AxisError = _cls("AxisError", 5, "TS_ERR_AXIS", (ValueError, IndexError),
                 "An axis out of range or repeated (TS_ERR_AXIS), as numpy.AxisError.")
NdimError = _cls("NdimError", 6, "TS_ERR_NDIM", (ValueError,),
                 "A wrong or too large number of dimensions (TS_ERR_NDIM).")
SizeError = _cls("SizeError", 7, "TS_ERR_SIZE", (ValueError,),
                 "Element counts differ or cannot be inferred (TS_ERR_SIZE).")
BroadcastError = _cls("BroadcastError", 8, "TS_ERR_BROADCAST", (ValueError,),
                      "Shapes that cannot be broadcast together (TS_ERR_BROADCAST).")
LayoutError = _cls("LayoutError", 9, "TS_ERR_LAYOUT", (ValueError,),
                   "Strides or contiguity forbid the operation (TS_ERR_LAYOUT).")
FileError = _cls("FileError", 10, "TS_ERR_IO", (OSError,),
                 "Opening, reading or fetching failed (TS_ERR_IO), with the system's or "
                 "the server's reason.")
FormatError = _cls("FormatError", 11, "TS_ERR_FORMAT", (ValueError,),
                   "The file is not valid in its format (TS_ERR_FORMAT); ``offset`` and "
                   "``entry`` say where.")
TruncatedError = type("TruncatedError", (FormatError,),
                      {"__doc__": "The file ends before the data it declares "
                                  "(TS_ERR_TRUNCATED).", "code_name": "TS_ERR_TRUNCATED",
                       "__module__": "tshape"})
UnsupportedError = _cls("UnsupportedError", 13, "TS_ERR_UNSUPPORTED", (),
                        "Valid input this version cannot handle (TS_ERR_UNSUPPORTED).")
LimitError = _cls("LimitError", 14, "TS_ERR_LIMIT", (),
                  "Input past a documented resource limit (TS_ERR_LIMIT; tshape(1) LIMITS).")
DtypeError = _cls("DtypeError", 15, "TS_ERR_DTYPE", (TypeError,),
                  "An unknown or unusable dtype (TS_ERR_DTYPE).")
IndexOutOfRangeError = _cls("IndexOutOfRangeError", 16, "TS_ERR_INDEX", (IndexError,),
                            "An index out of bounds (TS_ERR_INDEX).")
ValueOutOfRangeError = _cls("ValueOutOfRangeError", 17, "TS_ERR_VALUE", (ValueError,),
                            "A dim or argument with a forbidden value (TS_ERR_VALUE).")
CanceledError = _cls("CanceledError", 18, "TS_ERR_CANCELED", (),
                     "A callback asked to stop (TS_ERR_CANCELED).")

BY_CODE = {1: NoMemoryError, 2: InvalidArgumentError, 3: ParseError, 4: SizeOverflowError,
           5: AxisError, 6: NdimError, 7: SizeError, 8: BroadcastError, 9: LayoutError,
           10: FileError, 11: FormatError, 12: TruncatedError, 13: UnsupportedError,
           14: LimitError, 15: DtypeError, 16: IndexOutOfRangeError,
           17: ValueOutOfRangeError, 18: CanceledError}


def error_of(code, message, offset=None, column=None, entry=None, path=None):
    """The exception for a status code and its report."""
    cls = BY_CODE.get(code, Error)
    e = cls(code, message, offset, column, entry, path)
    return e


def from_report(code, err, path=None):
    """The exception for a failed call's status and its ts_error."""
    msg = err.message.decode("utf-8", "backslashreplace")
    offset = err.offset if err.offset >= 0 else None
    column = err.column if err.column > 0 else None
    entry = err.index if err.index >= 0 else None
    return error_of(code, msg, offset, column, entry, path)
