"""Model summaries (ts_summary) as the record of `tshape --json info
--summary` on a folder."""
import ctypes

from ._lib import Identity, Memory, MemoryOptions, SummaryOptions, SummarySum, lib
from ._util import check, enc, new_error, text

ROLE_KEYS = ("parameters", "buffers", "optimizer_state")


def _sum(s):
    return {"tensors": s.tensors,
            "size": None if s.size_overflow else s.size,
            "nbytes": None if (s.nbytes_overflow or s.nbytes_unknown) else s.nbytes}


def total(summary, files):
    """The "total" object of a summary record (man page, JSON RECORDS)."""
    allsum = lib.ts_summary_total(summary).contents
    overflow = bool(allsum.size_overflow or allsum.nbytes_overflow)
    dtypes = {}
    d = ctypes.POINTER(SummarySum)()
    i = 0
    while True:
        name = lib.ts_summary_dtype_at(summary, i, ctypes.byref(d))
        if name is None:
            break
        dtypes[text(name)] = _sum(d.contents)
        overflow |= bool(d.contents.size_overflow or d.contents.nbytes_overflow)
        i += 1
    out = {"files": files}
    out.update(_sum(allsum))
    out["overflow"] = overflow
    for r, key in enumerate(ROLE_KEYS):
        out[key] = _sum(lib.ts_summary_role(summary, r).contents)
    out["dtypes"] = dtypes
    return out


def _tensor(model, name, dtype, dims, size, nbytes, role, i):
    member = ctypes.c_size_t(0)
    lib.ts_model_array(model._handle, i, ctypes.byref(member))
    return {"name": name, "shape": list(dims), "dtype": dtype, "size": size,
            "nbytes": None if nbytes < 0 else nbytes, "role": text(lib.ts_role_name(role)),
            "file": text(lib.ts_model_file_path(model._handle, member.value))}


def _count(v):
    return None if v < 0 else v


def identity(model):
    """See Model.identify."""
    h = model._live()
    i = Identity()
    err = new_error()
    check(lib.ts_model_identify(h, ctypes.byref(i), ctypes.byref(err)), err, model.path)
    family = text(i.family)
    return {"kind": text(lib.ts_checkpoint_kind_name(i.kind)), "family": family,
            "evidence": text(i.evidence) if family is not None else None,
            "layers": _count(i.layers), "hidden": _count(i.hidden), "vocab": _count(i.vocab),
            "heads": _count(i.heads), "kv_heads": _count(i.kv_heads)}


def memory(model, *, context=0, batch=0, kv_dtype=None):
    """See Model.memory."""
    from ._commands import _dtype_code
    h = model._live()
    o = MemoryOptions()
    o.struct_size = ctypes.sizeof(MemoryOptions)
    o.context, o.batch = int(context), int(batch)
    o.kv_dtype = -1
    if kv_dtype is not None:
        # a dtype, or a quantised cache type of llama.cpp ("q8_0")
        kv_type = lib.ts_kv_cache_type(enc(str(kv_dtype)), None, None)
        if kv_type:
            o.kv_type = kv_type
        else:
            o.kv_dtype = _dtype_code(str(kv_dtype))
    mm = Memory()
    err = new_error()
    check(lib.ts_model_memory(h, ctypes.byref(o), ctypes.byref(mm), ctypes.byref(err)), err,
          model.path)
    return {"weights": mm.weights, "kv_cache": _count(mm.kv_cache), "total": mm.total,
            "source": text(mm.source), "layers": _count(mm.layers),
            "kv_heads": _count(mm.kv_heads), "head_dim_k": _count(mm.head_dim_k),
            "head_dim_v": _count(mm.head_dim_v), "context": _count(mm.context),
            "sliding_window": _count(mm.sliding_window), "sliding_layers": mm.sliding_layers,
            "batch": mm.batch,
            "kv_dtype": text(mm.kv_type) if mm.kv_type else text(lib.ts_dtype_name(mm.kv_dtype))}


def model_summary(model, *, top=5, group=False, tensors=False, filter=None, exclude=None,
                  memory_options=None):
    """See Model.summary."""
    from ._commands import _globs
    h = model._live()
    so = SummaryOptions()
    so.struct_size = ctypes.sizeof(SummaryOptions)
    so.top = int(top)
    so.group = 1 if group else 0
    s = ctypes.c_void_p()
    err = new_error()
    check(lib.ts_summary_new(ctypes.byref(so), ctypes.byref(s), ctypes.byref(err)), err)
    try:
        inc, ninc, exc, nexc, _keep = _globs(filter, exclude)
        kept = []
        for i in range(lib.ts_model_count(h)):
            name = lib.ts_model_array_name(h, i)
            if not lib.ts_name_selected(name, inc, ninc, exc, nexc):
                continue
            kept.append(i)
            check(lib.ts_summary_add(s, name, lib.ts_model_array(h, i, None), i,
                                     ctypes.byref(err)), err, model.path)
        largest = []
        for k in range(lib.ts_summary_largest_count(s)):
            t = lib.ts_summary_largest(s, k).contents
            largest.append(_tensor(model, text(t.name), text(t.dtype), t.dims[:t.ndim], t.size,
                                   t.nbytes, t.role, t.tag))
        groups = None
        if group:
            groups = []
            for k in range(lib.ts_summary_group_count(s)):
                g = lib.ts_summary_group_at(s, k).contents
                layers = text(g.layers)
                groups.append({"name": text(g.name), "shape": list(g.first.dims[:g.first.ndim]),
                               "dtype": text(g.first.dtype), "count": g.count,
                               "layers": layers if layers else None,
                               "role": text(lib.ts_role_name(g.first.role))})
        tlist = None
        if tensors:
            tlist = []
            for i in kept:
                p = lib.ts_model_array(h, i, None)
                a = p.contents
                name = lib.ts_model_array_name(h, i)
                dtype = a.dequantized_dtype if a.dequantized_dtype != -1 else a.dtype
                tlist.append(_tensor(model, text(name), text(lib.ts_summary_dtype(p)),
                                     a.shape.dims(), a.size, a.nbytes,
                                     lib.ts_tensor_role(name, dtype), i))
        return {"model": model.path, "index": model.index,
                "total": total(s, lib.ts_model_file_count(h)), "identity": identity(model),
                "memory": None if memory_options is None else memory(model, **memory_options),
                "largest": largest,
                "groups": groups, "tensors": tlist,
                "errors": lib.ts_model_error_count(h)}
    finally:
        lib.ts_summary_free(s)
