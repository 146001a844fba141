"""tshape.stats, tshape.diff, tshape.scan and tshape.convert: the CLI's
commands as functions whose records equal the CLI's JSON records (man
page, JSON RECORDS), computed by the same library calls.

Numbers follow the JSON: a float that is NaN or infinite is the string
"nan", "inf" or "-inf", as the CLI writes it (JSON has no literal for it),
so ``record == json.loads(line)`` holds for every record.
"""
import ctypes
import json
import math
import os
from dataclasses import dataclass, field

from . import _errors
from ._lib import (DIFF_RULE_COUNT, CompareOptions, DiffOptions, Stats, StatsOptions,
                   VerifyOptions, WriteOptions, WriteResult, WriteTensor, lib)
from ._model import Model
from ._util import check, enc, new_error, text

VALUE_INT, VALUE_UINT, VALUE_BOOL, VALUE_COMPLEX = 2, 3, 1, 5


def json_number(v):
    """A float as the CLI's JSON writes it: non-finite values as strings."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _globs(filter, exclude):
    """The glob lists of --filter/--exclude as C arrays (and the Python
    objects that keep them alive)."""
    def arr(x):
        if x is None:
            return None, 0, []
        if isinstance(x, (str, bytes)):
            x = [x]
        bs = [enc(g) for g in x]
        a = (ctypes.c_char_p * max(len(bs), 1))(*bs)
        return a, len(bs), bs
    fa, fn, fk = arr(filter)
    ea, en, ek = arr(exclude)
    return fa, fn, ea, en, (fa, ea, fk, ek)


def _is_model_path(path):
    return bool(lib.ts_model_path(enc(path)))


# ---- stats -------------------------------------------------------------------

def _stats_record(path, name, a, s):
    def minmax(which):
        if s.count > 0 and s.kind == VALUE_INT:
            return s.imax if which else s.imin
        if s.count > 0 and s.kind in (VALUE_UINT, VALUE_BOOL):
            return s.umax if which else s.umin
        return json_number(s.max if which else s.min)
    r = {"file": path, "name": name, "dtype": a.dtype_name,
         "shape": None if a.shape is None else list(a.shape), "count": s.count}
    if s.capped:  # max_bytes: the first elements only
        r.update({"size": a.size, "capped": True})
    r.update({"min": minmax(0), "max": minmax(1), "mean": json_number(s.mean),
         "std": json_number(s.std), "absmax": json_number(s.absmax), "zeros": s.zeros,
         "nan": s.nan, "posinf": s.posinf, "neginf": s.neginf})
    if s.kind == VALUE_BOOL:
        r["true"] = s.ntrue
    return r


@dataclass
class StatsResult:
    """What tshape.stats computed: ``records`` (one dict per array, as
    `tshape --json stats` prints them), ``summary`` (the record of
    `tshape --json stats --summary`, {"summary": {...}}), and ``errors``
    (a tshape.Error per array that could not be read, in order)."""
    records: list = field(default_factory=list)
    summary: dict = None
    errors: list = field(default_factory=list)


def stats(*paths, filter=None, exclude=None, recursive=False, threads=0, errors="raise",
          max_bytes=0):
    """The statistics of every array of the files or models (folders, index
    files, URLs): count, min, max, mean, std (population), absmax, zeros,
    NaN, +Inf, -Inf (bool: the true count), by NumPy's float64 rules
    (ts_array_stats), and the model-wide summary (ts_stats_summary).
    max_bytes > 0 (stats --max-bytes): the statistics of each array's first
    max_bytes bytes of elements as stored; such a record has "size" and
    "capped", and the summary counts them in "capped".
    filter/exclude select arrays by glob (fnmatch, as --filter/--exclude).
    errors="raise" raises the first array's error (a tshape.Error);
    errors="collect" keeps going and lists them in the result's errors.
    Returns a StatsResult."""
    if not paths:
        raise TypeError("stats() needs at least one path")
    many = len(paths) > 1 or any(_is_model_path(p) for p in paths)
    inc, ninc, exc, nexc, _keep = _globs(filter, exclude)
    err = new_error()
    ssum = ctypes.c_void_p()
    check(lib.ts_stats_summary_new(1 if many else 0, ctypes.byref(ssum), ctypes.byref(err)),
          err)
    res = StatsResult()
    so = StatsOptions()
    so.struct_size = ctypes.sizeof(StatsOptions)
    so.nthreads = threads
    so.max_bytes = max_bytes
    try:
        for path in paths:
            path = os.fspath(path)
            model_path = _is_model_path(path)
            with Model(path, recursive=recursive, metadata=False) as m:
                h = m._handle
                for i in range(lib.ts_model_count(h)):
                    member = ctypes.c_size_t(0)
                    p = lib.ts_model_array(h, i, ctypes.byref(member))
                    name = lib.ts_model_array_name(h, i) if model_path else p.contents.name
                    if not lib.ts_name_selected(name, inc, ninc, exc, nexc):
                        continue
                    f = lib.ts_model_file(h, member.value)
                    fpath = lib.ts_model_file_path(h, member.value) if model_path else enc(path)
                    s = Stats()
                    st = lib.ts_array_stats(f, p, ctypes.byref(so), ctypes.byref(s),
                                            ctypes.byref(err))
                    if st != 0:
                        e = _errors.from_report(st, err, text(fpath))
                        if errors == "raise":
                            raise e
                        res.errors.append(e)
                        lib.ts_stats_summary_fail(ssum)
                        continue
                    check(lib.ts_stats_summary_add(ssum, fpath, name, ctypes.byref(s),
                                                   ctypes.byref(err)), err)
                    res.records.append(_stats_record(text(fpath), text(name), m._array(i), s))
        t = lib.ts_stats_summary_totals(ssum).contents
        names = [text(lib.ts_stats_summary_nonfinite_at(ssum, k)) for k in range(t.nonfinite)]
        res.summary = {"summary": {"arrays": t.arrays, "elements": t.elements, "nan": t.nan,
                                   "posinf": t.posinf, "neginf": t.neginf,
                                   "absmax": json_number(t.absmax), "failed": t.failed}}
        if max_bytes:
            res.summary["summary"]["capped"] = t.capped
        res.summary["summary"]["nonfinite"] = names
        return res
    finally:
        lib.ts_stats_summary_free(ssum)


# ---- diff --------------------------------------------------------------------

@dataclass
class DiffResult:
    """What tshape.diff found, as `tshape --json diff` reports it:
      differences  one dict per pair that differs (kind, name, a, b, values,
                   metrics), and before it, for a pair made by an exporter's
                   rule or a tensor alone that one explains (instead of its
                   difference), a pairing dict (rule, name, a, b, via,
                   perm, explained)
      metadata     one dict per metadata entry that differs (metadata_key,
                   a, b, only); listed by the CLI only with --metadata
      metrics_groups  with values: one dict per dtype pair compared by error
                   metrics (metrics_group, tensors, count, nan, max_abs,
                   rmse, nmse, cosine_min)
      totals       the last record (equal, different, only_a, only_b,
                   changed, values, unreadable, metadata_different,
                   explained, rules)
      warnings     the CLI's warning lines (names held twice, prefixes that
                   matched nothing), without "tshape: diff: "
      errors       a tshape.Error per pair whose values could not be read
      status       the CLI's exit status: 0 equal, 1 different, 2 error
    ``records(metadata=...)`` gives the CLI's JSON lines in order."""
    differences: list = field(default_factory=list)
    metadata: list = field(default_factory=list)
    metrics_groups: list = field(default_factory=list)
    totals: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    status: int = 0

    @property
    def equal(self):
        return self.status == 0

    def records(self, metadata=False):
        return (self.differences + (self.metadata if metadata else []) + self.metrics_groups
                + [self.totals])


def _tensor_record(m, index):
    member = ctypes.c_size_t(0)
    p = lib.ts_model_array(m, index, ctypes.byref(member))
    a = p.contents
    return {"name": text(lib.ts_model_array_name(m, index)), "dtype": text(a.dtype_name),
            "shape": None if a.null_shape else list(a.shape.dims()),
            "file": text(lib.ts_model_file_path(m, member.value))}


def _values_record(ma, pair):
    c = pair.compare
    first = None
    if c.first >= 0:
        from ._shapes import unravel_index
        p = lib.ts_model_array(ma, pair.a, None)
        first = list(unravel_index(c.first, p.contents.shape.dims()))
    return {"compared_as": "int" if c.kind == VALUE_INT else
            "complex128" if c.kind == VALUE_COMPLEX else "float64",
            "count": c.count, "notclose": c.notclose, "first": first,
            "max_abs": json_number(c.max_abs), "max_rel": json_number(c.max_rel),
            "nan_a": c.nan_a, "nan_b": c.nan_b}


def _metrics_record(pair):
    m = pair.metrics
    return {"reference": "b" if pair.reference == 2 else "a", "qk_heads": pair.qk_heads,
            "count": m.count, "nan": m.nan, "max_abs": json_number(m.max_abs),
            "rmse": json_number(m.rmse), "nmse": json_number(m.nmse),
            "cosine": json_number(m.cosine)}


def _read_renames(names, rename, err):
    if rename is None:
        return
    if isinstance(rename, dict):
        for k, v in rename.items():
            check(lib.ts_namemap_add_rename(names, enc(k), enc(v), ctypes.byref(err)), err)
        return
    with open(rename, "rb") as f:
        text = f.read()
    check(lib.ts_namemap_read_renames(names, text, len(text), ctypes.byref(err)), err,
          os.fspath(rename))


def diff(a, b, *, strip_prefix=(), strip_prefix_a=(), strip_prefix_b=(), rename=None,
         filter=None, exclude=None, values=False, rtol=1e-05, atol=1e-08, equal_nan=False,
         metadata=False, recursive=False, metrics=False, name_map=True):
    """Compares two files or models (of any formats) as `tshape diff` does
    (ts_diff): tensors only in A, only in B, of another dtype or shape,
    matched by name after strip_prefix (both sides; literal, the first that
    matches), strip_prefix_a/_b (one side) and rename (a dict {A_NAME:
    B_NAME} or the path of a rename file), selected by filter/exclude
    globs on the mapped names; two one-array files are compared with each
    other whatever their names. values=True also compares the values of
    pairs of one shape by numpy.isclose's rule |a-b| <= atol + rtol*|b|
    (equal_nan: NaN close to NaN), or by error metrics (max abs, RMSE,
    NMSE, cosine; ts_array_metrics) for GGUF conversions, quantized tensors,
    and every pair with metrics=True (diff --metrics), added up by dtype
    pair in metrics_groups. When one side is a GGUF conversion of the
    other, the other's names are mapped to llama.cpp's (name_map=False:
    diff --no-name-map). metadata=True makes metadata differences count in
    the status (they are always listed). Returns a DiffResult."""
    err = new_error()
    names = ctypes.c_void_p()
    check(lib.ts_namemap_new(ctypes.byref(names), ctypes.byref(err)), err)
    res = DiffResult()
    ma = mb = None
    d = ctypes.c_void_p()
    try:
        options = []
        for sides, prefixes, opt in ((3, strip_prefix, "strip-prefix"),
                                     (1, strip_prefix_a, "strip-prefix-a"),
                                     (2, strip_prefix_b, "strip-prefix-b")):
            if isinstance(prefixes, (str, bytes)):
                prefixes = [prefixes]
            for p in prefixes:
                check(lib.ts_namemap_add_prefix(names, enc(p), sides, ctypes.byref(err)), err)
                options.append(opt)
        _read_renames(names, rename, err)
        ma = Model(a, recursive=recursive)
        mb = Model(b, recursive=recursive)
        inc, ninc, exc, nexc, _keep = _globs(filter, exclude)
        do = DiffOptions()
        do.struct_size = ctypes.sizeof(DiffOptions)
        do.names = names
        do.filter, do.nfilter, do.exclude, do.nexclude = inc, ninc, exc, nexc
        do.gguf_names = 1 if name_map else 0
        do.metrics = 1 if metrics else 0
        do.export_names = 1 if name_map else 0
        st = lib.ts_diff_new(ma._handle, mb._handle, ctypes.byref(do), ctypes.byref(d),
                             ctypes.byref(err))
        check(st, err, (ma.path, mb.path)[1 if (st == 10 and err.index == 1) else 0])
        for k in range(lib.ts_diff_duplicate_count(d)):
            side = ctypes.c_uint(0)
            nm = text(lib.ts_diff_duplicate_at(d, k, ctypes.byref(side), None))
            res.warnings.append("%s: warning: tensor '%s' appears more than once; the first "
                                "is compared" % ((ma.path, mb.path)[side.value == 2], nm))
        for k in range(lib.ts_namemap_prefix_count(names)):
            p = lib.ts_namemap_prefix_at(names, k).contents
            if p.hits_a + p.hits_b == 0:
                res.warnings.append("warning: --%s '%s' matches no name of %s"
                                    % (options[k], text(p.prefix),
                                       {3: "A or B", 1: "A", 2: "B"}[p.sides]))
        co = CompareOptions()
        co.struct_size = ctypes.sizeof(CompareOptions)
        co.rtol, co.atol, co.equal_nan = rtol, atol, 1 if equal_nan else 0
        for i in range(lib.ts_diff_count(d)):
            pair = lib.ts_diff_pair_at(d, i).contents
            if values and pair.kind in (0, 3):
                st = lib.ts_diff_compare_values(d, i, ctypes.byref(co), ctypes.byref(err))
                if st != 0:
                    m, idx = (mb, pair.b) if err.index == 1 else (ma, pair.a)
                    member = ctypes.c_size_t(0)
                    lib.ts_model_array(m._handle, idx, ctypes.byref(member))
                    e = _errors.from_report(st, err, text(lib.ts_model_file_path(
                        m._handle, member.value)))
                    if err.index not in (0, 1):
                        raise e
                    res.errors.append(e)
                pair = lib.ts_diff_pair_at(d, i).contents
            none = ctypes.c_size_t(-1).value
            if pair.rule >= 4:  # an exporter's rule: the pairing record
                res.differences.append({
                    "rule": text(lib.ts_diff_rule_name(pair.rule)), "name": text(pair.name),
                    "a": None if pair.a == none else text(lib.ts_model_array_name(ma._handle,
                                                                                   pair.a)),
                    "b": None if pair.b == none else text(lib.ts_model_array_name(mb._handle,
                                                                                   pair.b)),
                    "via": None if pair.via is None else text(pair.via),
                    "perm": list(pair.perm[:pair.perm_ndim]) if pair.perm_ndim else None,
                    "explained": bool(pair.explained)})
            if pair.kind in (0, 7) or pair.explained:  # equal, unreadable: not listed
                continue
            res.differences.append({
                "kind": text(lib.ts_diff_kind_name(pair.kind)),
                "name": text(pair.name),
                "a": None if pair.a == none else _tensor_record(ma._handle, pair.a),
                "b": None if pair.b == none else _tensor_record(mb._handle, pair.b),
                "values": (_values_record(ma._handle, pair)
                           if pair.values == 1 and not pair.by_metrics else None),
                "metrics": _metrics_record(pair) if pair.values == 1 and pair.by_metrics
                else None})
        for k in range(lib.ts_diff_metadata_count(d)):
            label, va, vb = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
            lib.ts_diff_metadata_at(d, k, ctypes.byref(label), ctypes.byref(va),
                                    ctypes.byref(vb))
            res.metadata.append({
                "metadata_key": text(label.value),
                "a": None if va.value is None else json.loads(text(va.value)),
                "b": None if vb.value is None else json.loads(text(vb.value)),
                "only": "b" if va.value is None else "a" if vb.value is None else None})
        for k in range(lib.ts_diff_metrics_group_count(d)):
            g = lib.ts_diff_metrics_group_at(d, k).contents
            res.metrics_groups.append({
                "metrics_group": text(g.label), "tensors": g.tensors, "count": g.count,
                "nan": g.nan, "max_abs": json_number(g.max_abs), "rmse": json_number(g.rmse),
                "nmse": json_number(g.nmse), "cosine_min": json_number(g.cosine_min)})
        t = lib.ts_diff_totals_of(d).contents
        res.totals = {"equal": t.kinds[0], "different": t.different, "only_a": t.kinds[1],
                      "only_b": t.kinds[2], "changed": t.changed, "values": t.kinds[6],
                      "unreadable": t.unreadable, "metadata_different": t.metadata_different,
                      "explained": t.explained,
                      "rules": {text(lib.ts_diff_rule_name(r)): t.rules[r]
                                for r in range(DIFF_RULE_COUNT)}}
        res.status = (2 if t.unreadable else
                      1 if t.different or (metadata and t.metadata_different) else 0)
        if not ma.complete or not mb.complete:
            res.status = 2
        return res
    finally:
        lib.ts_diff_free(d)
        for m in (ma, mb):
            if m is not None:
                m.close()
        lib.ts_namemap_free(names)


# ---- scan --------------------------------------------------------------------

@dataclass
class ScanResult:
    """What tshape.scan found: ``records`` as `tshape --json scan` prints
    them (per file: its "global" records, its "finding" records, then its
    "verdict" record), ``verdict`` (the worst class: "none", "tensor",
    "data", "unknown", "dangerous"), ``errors`` (files that could not be
    scanned whole) and ``status`` (the CLI's exit status: 2 when a file
    could not be scanned whole, else 1 for "unknown" or "dangerous", else
    0)."""
    records: list = field(default_factory=list)
    verdict: str = "none"
    errors: int = 0
    status: int = 0

    @property
    def files(self):
        return [r for r in self.records if r["type"] == "verdict"]


def scan(path):
    """What loading the file (or every file of a folder) would import and
    run: every global its pickles name with its class (tensor, data,
    unknown, dangerous), zip and pickle findings, and whether
    torch.load(weights_only=True) would accept it (ts_scan; tshape(1)
    SCAN). Never imports or runs anything. Returns a ScanResult."""
    err = new_error()
    s = ctypes.c_void_p()
    path = os.fspath(path)
    check(lib.ts_scan_open(enc(path), ctypes.byref(s), ctypes.byref(err)), err, path)
    try:
        res = ScanResult()
        cls = lambda c: text(lib.ts_scan_class_name(c))  # noqa: E731
        for i in range(lib.ts_scan_file_count(s)):
            f = lib.ts_scan_file_at(s, i).contents
            fpath = text(f.path)
            for k in range(f.nglobals):
                g = lib.ts_scan_global_at(s, f.first_global + k).contents
                res.records.append({
                    "type": "global", "file": fpath, "pickle": text(g.pickle),
                    "offset": g.offset,
                    "file_offset": g.file_offset if g.file_offset >= 0 else None,
                    "opcode": text(g.opcode), "module": text(g.module), "name": text(g.name),
                    "count": g.count, "class": cls(g.cls), "what": text(g.what),
                    "torch_1_13": bool(g.torch_1_13), "torch_2_4": bool(g.torch_2_4)})
            for k in range(f.nfindings):
                x = lib.ts_scan_finding_at(s, f.first_finding + k).contents
                res.records.append({
                    "type": "finding", "file": fpath,
                    "finding": text(lib.ts_scan_finding_kind_name(x.kind)),
                    "class": cls(x.cls), "where": text(x.where),
                    "offset": x.offset if x.offset >= 0 else None, "message": text(x.message)})
            wo = None
            if f.torch_1_13 != 0 or f.torch_2_4 != 0:
                safe = text(f.safe_globals)
                wo = {"torch_1_13": {"verdict": text(lib.ts_scan_wo_name(f.torch_1_13)),
                                     "why": text(f.why_1_13)},
                      "torch_2_4": {"verdict": text(lib.ts_scan_wo_name(f.torch_2_4)),
                                    "why": text(f.why_2_4),
                                    "safe_globals": safe.split(", ") if safe else []}}
            res.records.append({
                "type": "verdict", "file": fpath, "container": text(f.container),
                "verdict": cls(f.verdict), "error": text(f.error), "pickles": f.npickles,
                "globals": f.nglobals, "findings": f.nfindings, "weights_only": wo})
        res.verdict = cls(lib.ts_scan_verdict(s))
        res.errors = lib.ts_scan_error_count(s)
        res.status = 2 if res.errors else 1 if res.verdict in ("unknown", "dangerous") else 0
        return res
    finally:
        lib.ts_scan_close(s)


# ---- convert -----------------------------------------------------------------

_WRITE_FORMATS = {"safetensors": 0, "npz": 1, "npy-dir": 2}
_CASTS = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


# ---- verify ------------------------------------------------------------------

@dataclass
class VerifyResult:
    """What tshape.verify found, as `tshape --json verify PATH` reports it:
    ``problems`` (one record per problem: check, class, error, path, file,
    name, message, expected, actual), ``verdict`` (the verdict record:
    verified, verdict, text, errors, warnings and what was checked),
    ``status`` (the CLI's exit status: 0 "ok", 2 "unreadable", else 1).
    ``records()`` gives the CLI's JSON lines in order."""
    problems: list = field(default_factory=list)
    verdict: dict = field(default_factory=dict)
    status: int = 0

    @property
    def ok(self):
        return self.status == 0

    def records(self):
        return self.problems + [self.verdict]


def verify(path, *, deep=False, recursive=False, threads=0):
    """Is a download complete and consistent (ts_verify_path; tshape(1)
    VERIFY)? Checks the files an index names, each file's length against its
    headers, LFS pointers and partial downloads, the headers, the index
    against them and its total_size; deep=True also reads the data (zip
    CRC-32s, every tensor, NaN/Inf counted). recursive: a folder without an
    index, with its subfolders. Problems are results; a path that cannot be
    read at all raises a tshape.Error. Returns a VerifyResult."""
    path = os.fspath(path)
    o = VerifyOptions()
    o.struct_size = ctypes.sizeof(VerifyOptions)
    o.deep, o.recursive, o.nthreads = int(bool(deep)), int(bool(recursive)), threads
    v = ctypes.c_void_p()
    err = new_error()
    check(lib.ts_verify_path(enc(path), ctypes.byref(o), ctypes.byref(v), ctypes.byref(err)),
          err, path)
    try:
        res = VerifyResult()
        for i in range(lib.ts_verify_problem_count(v)):
            p = lib.ts_verify_problem_at(v, i).contents
            res.problems.append({
                "check": text(lib.ts_verify_check_name(p.check)),
                "class": text(lib.ts_verify_class_name(p.cls)), "error": p.cls != 0,
                "path": path, "file": text(p.path), "name": text(p.name),
                "message": text(p.message),
                "expected": None if p.expected < 0 else p.expected,
                "actual": None if p.actual < 0 else p.actual})
        verdict = lib.ts_verify_verdict(v)
        t = lib.ts_verify_totals_of(v).contents
        errors = lib.ts_verify_error_count(v)
        res.verdict = {
            "verified": path, "verdict": text(lib.ts_verify_class_name(verdict)),
            "text": text(lib.ts_verify_class_text(verdict)), "errors": errors,
            "warnings": len(res.problems) - errors, "files": t.files, "tensors": t.tensors,
            "nbytes": t.nbytes, "file_bytes": t.file_bytes,
            "length_checked": t.length_checked, "length_unchecked": t.length_unchecked,
            "deep": bool(t.deep), "crc_checked": t.crc_checked, "data_bytes": t.data_bytes}
        res.status = 0 if verdict == 0 else 2 if verdict == 4 else 1
        return res
    finally:
        lib.ts_verify_free(v)


def _dtype_code(name):
    v = ctypes.c_int(0)
    err = new_error()
    check(lib.ts_dtype_from_string(enc(name), ctypes.byref(v), ctypes.byref(err)), err)
    return v.value


def convert(src, dst, *, to=None, filter=None, exclude=None, strip_prefix=(), rename=None,
            overwrite=False, cast=None, dequantize=None, compress=False,
            max_shard_size=None, verify=True, skip_unsupported=False):
    """Writes the arrays of a file or model as safetensors, .npz or a
    folder of .npy files (ts_write: dtypes bit for bit, views and
    Fortran-order or big-endian data as C-order little-endian copies,
    written under a temporary name, verified by reading it back, then
    renamed; on any error nothing is left). to: "safetensors", "npz" or
    "npy-dir" (default: dst's extension; an existing folder receives
    model.safetensors). Names as `tshape convert`: an unnamed array of a
    file of several is "arr_K", filter/exclude select, strip_prefix and
    rename map. cast: "float16", "bfloat16", ... for floating arrays;
    dequantize: True/"float32" or "float16" for GGUF blocks;
    max_shard_size: bytes of data per safetensors shard (with an index).
    Returns the record of `tshape --json convert` (wrote, to, source,
    tensors, bytes, files, index, file_bytes, verified, copied, shared)."""
    src, dst = os.fspath(src), os.fspath(dst)
    if to is None:
        if os.path.isdir(dst) or dst.endswith(".safetensors"):
            to = "safetensors"
        elif dst.endswith(".npz"):
            to = "npz"
        else:
            raise _errors.InvalidArgumentError(
                2, "cannot tell the output format from '%s': name it .safetensors or .npz, "
                   "or pass to='safetensors'|'npz'|'npy-dir'" % dst)
    fmt = _WRITE_FORMATS[to]
    out = dst
    if fmt != 2 and os.path.isdir(dst):
        out = os.path.join(dst, "model.npz" if fmt == 1 else "model.safetensors")
    wo = WriteOptions()
    wo.struct_size = ctypes.sizeof(WriteOptions)
    wo.format, wo.overwrite = fmt, 1 if overwrite else 0
    wo.compress, wo.no_verify = 1 if compress else 0, 0 if verify else 1
    wo.cast_dtype = wo.dequantize_dtype = 0
    if cast is not None:
        if cast not in _CASTS:
            raise _errors.InvalidArgumentError(2, "cast=%r: expected one of %s"
                                               % (cast, ", ".join(_CASTS)))
        wo.cast, wo.cast_dtype = 1, _dtype_code(cast)
    if dequantize:
        wo.dequantize = 1
        wo.dequantize_dtype = _dtype_code("float32" if dequantize is True else dequantize)
    wo.max_shard_size = int(max_shard_size or 0)
    err = new_error()
    names = ctypes.c_void_p()
    check(lib.ts_namemap_new(ctypes.byref(names), ctypes.byref(err)), err)
    m = None
    try:
        for p in ([strip_prefix] if isinstance(strip_prefix, (str, bytes)) else strip_prefix):
            check(lib.ts_namemap_add_prefix(names, enc(p), 1, ctypes.byref(err)), err)
        _read_renames(names, rename, err)
        m = Model(src, metadata=False)
        if not m.complete:
            raise _errors.FormatError(11, "the model is incomplete: nothing written", path=src)
        h = m._handle
        for f in [src] + ([m.index] if m.index else []) + m.files:
            if os.path.exists(out) and os.path.exists(f) and os.path.samefile(out, f):
                raise _errors.InvalidArgumentError(2, "is the input %s: IN and OUT must "
                                                   "differ" % src, path=out)
        inc, ninc, exc, nexc, _keep = _globs(filter, exclude)
        chosen, keep = [], []
        for i in range(lib.ts_model_count(h)):
            member = ctypes.c_size_t(0)
            p = lib.ts_model_array(h, i, ctypes.byref(member))
            f = lib.ts_model_file(h, member.value)
            name = lib.ts_model_array_name(h, i)
            if not p.contents.name and lib.ts_file_count(f) > 1:
                k = next(k for k in range(lib.ts_file_count(f))
                         if ctypes.addressof(lib.ts_file_array(f, k).contents)
                         == ctypes.addressof(p.contents))
                name = b"arr_%d" % k
            if not lib.ts_name_selected(name, inc, ninc, exc, nexc):
                continue
            mapped = ctypes.string_at(lib.ts_namemap_apply(names, 1, name))
            keep.append(mapped)
            chosen.append((i, member.value, p, f, mapped))
        tensors = (WriteTensor * max(len(chosen), 1))()
        written = []
        bad = []
        check_fn = lib.ts_write_check
        for (i, member, p, f, mapped) in chosen:
            t = WriteTensor(mapped, f, p)
            st = check_fn(ctypes.byref(t), ctypes.byref(wo), ctypes.byref(err))
            if st != 0:
                if skip_unsupported and st in (13, 15):
                    continue
                bad.append(_errors.from_report(st, err, src))
                continue
            tensors[len(written)] = t
            written.append((i, member, p, mapped))
        if bad:
            raise bad[0]
        if not written:
            raise _errors.ValueOutOfRangeError(
                17, "no arrays to write%s" % (" (all skipped)" if chosen else
                                              " (all filtered out)" if filter or exclude
                                              else ""), path=src)
        if lib.ts_model_file_count(h) > 0:
            wo.source_format = lib.ts_format_name(lib.ts_file_format(lib.ts_model_file(h, 0)))
        wo.source_file = enc(os.path.basename(src.rstrip("/")) or src)
        copies = []
        if fmt != 2 and os.path.isdir(dst) and _is_model_path(src):
            for k in range(lib.ts_model_other_file_count(h)):
                o = text(lib.ts_model_other_file(h, k))
                target = os.path.join(dst, os.path.basename(o))
                if not os.path.isfile(o) or (os.path.exists(target)
                                             and os.path.samefile(o, target)):
                    continue
                if os.path.getsize(o) <= 64 << 20:
                    copies.append(enc(o))
                else:
                    import warnings
                    warnings.warn("tshape.convert: %s: not copied: %s (files above 64 MiB are "
                                  "not small files of a model folder)"
                                  % (src, os.path.basename(o)), stacklevel=2)
        carr = (ctypes.c_char_p * max(len(copies), 1))(*copies)
        wo.copy_files, wo.copy_count = (carr if copies else None), len(copies)
        r = WriteResult()
        check(lib.ts_write(enc(out), tensors, len(written), ctypes.byref(wo), ctypes.byref(r),
                           ctypes.byref(err)), err, out)
        shared = {}
        for (i, member, p, mapped) in written:
            key = p.contents.storage_key
            if key is not None and m.files and lib.ts_file_format(
                    lib.ts_model_file(h, member)) != 9:
                shared.setdefault((member, key), []).append(text(mapped))
        sharded = wo.max_shard_size > 0 and r.files > 1
        index = None
        if sharded:
            index = (out[:-len(".safetensors")] if out.endswith(".safetensors") else out) \
                + ".safetensors.index.json"
        return {"wrote": out, "to": to, "source": src, "tensors": r.tensors,
                "bytes": r.data_bytes, "files": r.files, "index": index,
                "file_bytes": r.file_bytes, "verified": bool(verify),
                "copied": [os.path.basename(text(c)) for c in copies],
                "shared": [{"storage": text(k[1]), "tensors": v}
                           for k, v in sorted(shared.items(), key=lambda kv: (kv[0][0],
                                                                              kv[0][1]))
                           if len(v) > 1]}
    finally:
        if m is not None:
            m.close()
        lib.ts_namemap_free(names)
