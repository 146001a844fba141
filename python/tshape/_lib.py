"""The C library under the module: finding libtshape, its structs and the
prototypes of the functions the module calls (ctypes, from the standard
library: no compiler is needed to install the module).

The library is found, in this order:
  1. the path in the environment variable TSHAPE_LIBRARY;
  2. the copy installed inside this package (``pip install ./python`` from
     a built source tree puts ``build/libtshape.so.0`` there);
  3. the system's ``libtshape.so.0`` (the Debian package libtshape0, or
     ``make install``), through the dynamic loader's search path.

Structs mirror include/tshape.h field for field, up to the last field this
module reads: the library allocates the structs it hands out (ts_array,
ts_diff_pair, ...) and only ever appends fields to them, so reading a
prefix through a pointer is safe with any later library. Option structs
the module passes in carry their size (struct_size), as the header asks.
"""
import ctypes
import os

c_int = ctypes.c_int
c_int32 = ctypes.c_int32
c_int64 = ctypes.c_int64
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_double = ctypes.c_double
c_unsigned = ctypes.c_uint
POINTER = ctypes.POINTER

SONAME = "libtshape.so.0"
ERROR_MESSAGE_MAX = 512
STACK_CACHE = 4
MAX_NDIM = 64
CONV_MAX_SPATIAL = 3
DIFF_KIND_COUNT = 8
ROLE_COUNT = 3


class Shape(ctypes.Structure):
    """ts_shape: ndim dims, inline up to 4, on the heap beyond."""
    _fields_ = [("ndim", c_int32), ("heap_capacity", c_int32),
                ("stack", c_int64 * STACK_CACHE), ("heap", POINTER(c_int64))]

    def dims(self):
        n = self.ndim
        if n <= STACK_CACHE or not self.heap:
            return tuple(self.stack[:n])
        return tuple(self.heap[:n])


class Error(ctypes.Structure):
    """ts_error: the detailed report of a failed call."""
    _fields_ = [("code", c_int), ("column", c_int64), ("offset", c_int64),
                ("index", c_int64), ("message", ctypes.c_char * ERROR_MESSAGE_MAX)]


class Array(ctypes.Structure):
    """ts_array, the fields this module reads (a prefix: see above)."""
    _fields_ = [("name", c_char_p), ("shape", Shape), ("dtype", c_int),
                ("dtype_name", c_char_p), ("format_dtype", c_char_p),
                ("byteorder", ctypes.c_char), ("itemsize", c_int64), ("bits", c_int32),
                ("block_size", c_int64), ("block_bytes", c_int64), ("size", c_int64),
                ("nbytes", c_int64), ("data_offset", c_int64), ("fortran_order", c_int),
                ("storage", c_int), ("storage_shape", Shape), ("dev_type", c_int32),
                ("dev_id", c_int32), ("note", c_char_p), ("descr", c_char_p),
                ("device", c_char_p), ("strides", Shape), ("storage_offset", c_int64),
                ("storage_key", c_char_p), ("null_shape", c_int), ("dequantized_dtype", c_int)]


class ElementSize(ctypes.Structure):
    _fields_ = [("itemsize", c_int64), ("bits", c_int64), ("block_size", c_int64),
                ("block_bytes", c_int64)]


class OpenOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("format", c_int), ("npy_max_header", c_size_t),
                ("gguf_stored_order", c_int), ("want_metadata", c_int), ("path", c_char_p),
                ("max_fetch", c_uint64), ("io", c_int), ("log", c_void_p),
                ("log_user", c_void_p), ("first_fetch", c_uint64)]


class ModelOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("recursive", c_int), ("threads", c_int),
                ("open", POINTER(OpenOptions))]


class ModelIssue(ctypes.Structure):
    _fields_ = [("kind", c_int), ("is_error", c_int), ("path", c_char_p), ("name", c_char_p),
                ("message", c_char_p)]


class ModelMeta(ctypes.Structure):
    _fields_ = [("source", c_int), ("path", c_char_p), ("key", c_char_p),
                ("value", c_char_p), ("files", c_size_t)]


class FormatInfo(ctypes.Structure):
    _fields_ = [("format", c_int), ("name", c_char_p), ("extensions", c_char_p),
                ("detection", c_char_p), ("description", c_char_p),
                ("dtype_field", c_char_p), ("side_files", c_int)]


class SummaryOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("top", c_int64), ("group", c_int)]


class SummarySum(ctypes.Structure):
    _fields_ = [("tensors", c_int64), ("size", c_int64), ("nbytes", c_int64),
                ("size_overflow", c_int), ("nbytes_overflow", c_int),
                ("nbytes_unknown", c_int)]


class SummaryTensor(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("dtype", c_char_p), ("dims", POINTER(c_int64)),
                ("ndim", c_int), ("size", c_int64), ("nbytes", c_int64), ("role", c_int),
                ("tag", c_size_t)]


class SummaryGroup(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("layers", c_char_p), ("count", c_int64),
                ("first", SummaryTensor)]


class Stats(ctypes.Structure):
    _fields_ = [("kind", c_int), ("count", c_int64), ("min", c_double), ("max", c_double),
                ("imin", c_int64), ("imax", c_int64), ("umin", c_uint64), ("umax", c_uint64),
                ("mean", c_double), ("std", c_double), ("absmax", c_double),
                ("finite", c_int64), ("zeros", c_int64), ("nan", c_int64),
                ("posinf", c_int64), ("neginf", c_int64), ("ntrue", c_int64),
                ("capped", c_int)]


class StatsTotals(ctypes.Structure):
    _fields_ = [("arrays", c_int64), ("elements", c_int64), ("nan", c_int64),
                ("posinf", c_int64), ("neginf", c_int64), ("failed", c_int64),
                ("absmax", c_double), ("nonfinite", c_size_t), ("capped", c_int64)]


class StatsOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("nthreads", c_int), ("progress", c_void_p),
                ("progress_ctx", c_void_p), ("max_bytes", c_int64)]


class Compare(ctypes.Structure):
    _fields_ = [("kind", c_int), ("count", c_int64), ("notclose", c_int64),
                ("first", c_int64), ("max_abs", c_double), ("max_rel", c_double),
                ("nan_a", c_int64), ("nan_b", c_int64)]


class CompareOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("rtol", c_double), ("atol", c_double),
                ("equal_nan", c_int), ("nthreads", c_int), ("progress", c_void_p),
                ("progress_ctx", c_void_p)]


class NamemapPrefix(ctypes.Structure):
    _fields_ = [("prefix", c_char_p), ("sides", c_unsigned), ("hits_a", c_int64),
                ("hits_b", c_int64)]


class Metrics(ctypes.Structure):
    _fields_ = [("count", c_int64), ("nan", c_int64), ("max_abs", c_double),
                ("rmse", c_double), ("nmse", c_double), ("cosine", c_double),
                ("sq_err", c_double), ("sq_ref", c_double)]


class DiffPair(ctypes.Structure):
    _fields_ = [("kind", c_int), ("name", c_char_p), ("name_b", c_char_p), ("a", c_size_t),
                ("b", c_size_t), ("values", c_int), ("compare", Compare),
                ("by_metrics", c_int), ("reference", c_unsigned), ("qk_heads", c_int64),
                ("metrics", Metrics)]


class DiffMetricsGroup(ctypes.Structure):
    _fields_ = [("label", c_char_p), ("tensors", c_int64), ("count", c_int64),
                ("nan", c_int64), ("sq_err", c_double), ("sq_ref", c_double),
                ("max_abs", c_double), ("rmse", c_double), ("nmse", c_double),
                ("cosine_min", c_double)]


class DiffTotals(ctypes.Structure):
    _fields_ = [("kinds", c_int64 * DIFF_KIND_COUNT), ("changed", c_int64),
                ("different", c_int64), ("unreadable", c_int64),
                ("metadata_different", c_int64), ("metadata_a", c_int64),
                ("metadata_b", c_int64)]


class DiffOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("names", c_void_p), ("filter", POINTER(c_char_p)),
                ("nfilter", c_size_t), ("exclude", POINTER(c_char_p)), ("nexclude", c_size_t),
                ("gguf_names", c_int), ("metrics", c_int)]


class Identity(ctypes.Structure):
    _fields_ = [("kind", c_int), ("family", c_char_p), ("evidence", ctypes.c_char * 256),
                ("layers", c_int64), ("hidden", c_int64), ("vocab", c_int64),
                ("heads", c_int64), ("kv_heads", c_int64)]


class Memory(ctypes.Structure):
    _fields_ = [("weights", c_int64), ("kv_cache", c_int64), ("total", c_int64),
                ("layers", c_int64), ("kv_heads", c_int64), ("head_dim_k", c_int64),
                ("head_dim_v", c_int64), ("context", c_int64), ("sliding_window", c_int64),
                ("sliding_layers", c_int64), ("batch", c_int64), ("kv_dtype", c_int),
                ("source", c_char_p), ("kv_type", c_char_p)]


class MemoryOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("context", c_int64), ("batch", c_int64),
                ("kv_dtype", c_int), ("kv_type", c_char_p)]


class FingerprintOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("values", c_int), ("nthreads", c_int),
                ("listing", c_void_p), ("listing_user", c_void_p), ("progress", c_void_p),
                ("progress_ctx", c_void_p)]


class Fingerprint(ctypes.Structure):
    _fields_ = [("sha256", ctypes.c_char * 65), ("tensors", c_int64), ("nbytes", c_int64),
                ("values", c_int)]


class VerifyProblem(ctypes.Structure):
    _fields_ = [("check", c_int), ("cls", c_int), ("path", c_char_p), ("name", c_char_p),
                ("message", c_char_p), ("expected", c_int64), ("actual", c_int64)]


class VerifyTotals(ctypes.Structure):
    _fields_ = [("files", c_int64), ("tensors", c_int64), ("nbytes", c_int64),
                ("file_bytes", c_int64), ("length_checked", c_int64),
                ("length_unchecked", c_int64), ("crc_checked", c_int64),
                ("data_bytes", c_int64), ("deep", c_int)]


class VerifyOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("deep", c_int), ("nthreads", c_int),
                ("recursive", c_int), ("open", POINTER(OpenOptions)), ("progress", c_void_p),
                ("progress_ctx", c_void_p)]


class ScanGlobal(ctypes.Structure):
    _fields_ = [("file", c_size_t), ("pickle", c_char_p), ("offset", c_int64),
                ("file_offset", c_int64), ("opcode", c_char_p), ("module", c_char_p),
                ("name", c_char_p), ("count", c_uint64), ("cls", c_int), ("what", c_char_p),
                ("torch_1_13", c_int), ("torch_2_4", c_int)]


class ScanFinding(ctypes.Structure):
    _fields_ = [("file", c_size_t), ("kind", c_int), ("cls", c_int), ("where", c_char_p),
                ("offset", c_int64), ("message", c_char_p)]


class ScanFile(ctypes.Structure):
    _fields_ = [("path", c_char_p), ("container", c_char_p), ("verdict", c_int),
                ("status", c_int), ("error", c_char_p), ("first_global", c_size_t),
                ("nglobals", c_size_t), ("first_finding", c_size_t), ("nfindings", c_size_t),
                ("npickles", c_size_t), ("torch_1_13", c_int), ("torch_2_4", c_int),
                ("why_1_13", c_char_p), ("why_2_4", c_char_p), ("safe_globals", c_char_p)]


class WriteTensor(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("file", c_void_p), ("array", POINTER(Array))]


class WriteOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("format", c_int), ("overwrite", c_int),
                ("cast", c_int), ("cast_dtype", c_int), ("dequantize", c_int),
                ("dequantize_dtype", c_int), ("compress", c_int), ("no_verify", c_int),
                ("max_shard_size", c_int64), ("source_format", c_char_p),
                ("source_file", c_char_p), ("progress", c_void_p), ("progress_ctx", c_void_p),
                ("copy_files", POINTER(c_char_p)), ("copy_count", c_size_t)]


class WriteResult(ctypes.Structure):
    _fields_ = [("tensors", c_size_t), ("data_bytes", c_int64), ("file_bytes", c_int64),
                ("files", c_size_t)]


class ConvParams(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("nspatial", c_int),
                ("kernel", c_int64 * CONV_MAX_SPATIAL), ("stride", c_int64 * CONV_MAX_SPATIAL),
                ("dilation", c_int64 * CONV_MAX_SPATIAL),
                ("pad_begin", c_int64 * CONV_MAX_SPATIAL),
                ("pad_end", c_int64 * CONV_MAX_SPATIAL),
                ("output_padding", c_int64 * CONV_MAX_SPATIAL), ("pad_mode", c_int),
                ("groups", c_int64), ("out_channels", c_int64), ("ceil_mode", c_int)]


class AxisSize(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("name_len", c_size_t), ("size", c_int64)]


def _init(cls, **fields):
    """A struct with struct_size set and the given fields."""
    s = cls()
    s.struct_size = ctypes.sizeof(cls)
    for k, v in fields.items():
        setattr(s, k, v)
    return s


def open_options(**fields):
    return _init(OpenOptions, **fields)


S = POINTER(Shape)
E = POINTER(Error)
A = POINTER(Array)
P = c_void_p  # opaque handles: ts_file *, ts_model *, ts_diff *, ...
status = c_int

# name: (restype, argtypes). Every function the module calls; one missing
# from the loaded library (an older one) fails when it is first called.
PROTOTYPES = {
    "ts_version": (c_char_p, []),
    "ts_strerror": (c_char_p, [c_int]),
    "ts_shape_init": (None, [S]),
    "ts_shape_free": (None, [S]),
    "ts_shape_assign": (status, [S, POINTER(c_int64), c_int, E]),
    "ts_shape_parse": (status, [c_char_p, c_size_t, c_unsigned, S, POINTER(c_size_t), E]),
    "ts_shape_size": (status, [S, POINTER(c_int64), E]),
    "ts_shape_format": (c_size_t, [S, c_unsigned, c_char_p, c_size_t]),
    "ts_shape_flat2d": (status, [S, POINTER(c_int64), E]),
    "ts_shape_flat3d": (status, [S, c_int64, c_int64, POINTER(c_int64), E]),
    "ts_shape_prod": (status, [S, c_int64, c_int64, POINTER(c_int64), E]),
    "ts_reshape": (status, [S, S, c_unsigned, S, E]),
    "ts_broadcast": (status, [POINTER(S), c_size_t, S, E]),
    "ts_transpose": (status, [S, POINTER(c_int64), c_size_t, S, E]),
    "ts_squeeze": (status, [S, POINTER(c_int64), c_size_t, S, E]),
    "ts_expand_dims": (status, [S, POINTER(c_int64), c_size_t, S, E]),
    "ts_moveaxis": (status, [S, POINTER(c_int64), POINTER(c_int64), c_size_t, S, E]),
    "ts_flatten": (status, [S, c_int64, c_int64, S, E]),
    "ts_strides": (status, [S, c_int64, ctypes.c_char, POINTER(c_int64), E]),
    "ts_is_c_contiguous": (c_int, [S, POINTER(c_int64), c_int64]),
    "ts_is_f_contiguous": (c_int, [S, POINTER(c_int64), c_int64]),
    "ts_ravel_index": (status, [S, POINTER(c_int64), c_size_t, ctypes.c_char, POINTER(c_int),
                                c_size_t, POINTER(c_int64), E]),
    "ts_unravel_index": (status, [S, c_int64, ctypes.c_char, POINTER(c_int64), E]),
    "ts_einsum_shape": (status, [c_char_p, S, c_size_t, S, E]),
    "ts_einops_shape": (status, [c_int, c_char_p, S, POINTER(AxisSize), c_size_t, S, E]),
    "ts_conv_shape": (status, [S, POINTER(ConvParams), S, S, E]),
    "ts_conv_transpose_shape": (status, [S, POINTER(ConvParams), S, S, E]),
    "ts_pool_shape": (status, [S, c_int, POINTER(ConvParams), S, E]),
    "ts_matmul_shape": (status, [S, S, S, E]),
    "ts_linear_shape": (status, [S, c_int64, c_int64, S, S, E]),
    "ts_concat_shape": (status, [POINTER(S), c_size_t, c_int64, S, E]),
    "ts_stack_shape": (status, [POINTER(S), c_size_t, c_int64, S, E]),
    "ts_dtype_name": (c_char_p, [c_int]),
    "ts_dtype_from_string": (status, [c_char_p, POINTER(c_int), E]),
    "ts_format_name": (c_char_p, [c_int]),
    "ts_format_from_name": (status, [c_char_p, POINTER(c_int), E]),
    "ts_format_count": (c_size_t, []),
    "ts_format_info_at": (POINTER(FormatInfo), [c_size_t]),
    "ts_is_url": (c_int, [c_char_p]),
    "ts_model_path": (c_int, [c_char_p]),
    "ts_file_open": (status, [c_char_p, POINTER(OpenOptions), POINTER(P), E]),
    "ts_file_close": (None, [P]),
    "ts_file_format": (c_int, [P]),
    "ts_file_version": (c_char_p, [P]),
    "ts_file_nbytes": (c_int64, [P]),
    "ts_file_count": (c_size_t, [P]),
    "ts_file_array": (A, [P, c_size_t]),
    "ts_file_metadata_count": (c_size_t, [P]),
    "ts_array_element_size": (None, [A, POINTER(ElementSize)]),
    "ts_file_metadata": (c_int, [P, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    "ts_model_open": (status, [c_char_p, POINTER(ModelOptions), POINTER(P), E]),
    "ts_model_close": (None, [P]),
    "ts_model_index": (c_char_p, [P]),
    "ts_model_file_count": (c_size_t, [P]),
    "ts_model_file": (P, [P, c_size_t]),
    "ts_model_file_path": (c_char_p, [P, c_size_t]),
    "ts_model_file_label": (c_char_p, [P, c_size_t]),
    "ts_model_count": (c_size_t, [P]),
    "ts_model_array": (A, [P, c_size_t, POINTER(c_size_t)]),
    "ts_model_array_name": (c_char_p, [P, c_size_t]),
    "ts_model_issue_count": (c_size_t, [P]),
    "ts_model_error_count": (c_size_t, [P]),
    "ts_model_issue_at": (POINTER(ModelIssue), [P, c_size_t]),
    "ts_model_other_file_count": (c_size_t, [P]),
    "ts_model_other_file": (c_char_p, [P, c_size_t]),
    "ts_model_metadata_count": (c_size_t, [P]),
    "ts_model_metadata_at": (POINTER(ModelMeta), [P, c_size_t]),
    "ts_tensor_role": (c_int, [c_char_p, c_int]),
    "ts_checkpoint_kind_name": (c_char_p, [c_int]),
    "ts_verify_class_name": (c_char_p, [c_int]),
    "ts_verify_class_text": (c_char_p, [c_int]),
    "ts_verify_check_name": (c_char_p, [c_int]),
    "ts_verify_path": (status, [c_char_p, POINTER(VerifyOptions), POINTER(P), E]),
    "ts_verify_free": (None, [P]),
    "ts_verify_verdict": (c_int, [P]),
    "ts_verify_problem_count": (c_size_t, [P]),
    "ts_verify_error_count": (c_size_t, [P]),
    "ts_verify_problem_at": (POINTER(VerifyProblem), [P, c_size_t]),
    "ts_verify_totals_of": (POINTER(VerifyTotals), [P]),
    "ts_model_identify": (status, [P, POINTER(Identity), E]),
    "ts_model_memory": (status, [P, POINTER(MemoryOptions), POINTER(Memory), E]),
    "ts_kv_cache_type": (c_char_p, [c_char_p, POINTER(c_int64), POINTER(c_int64)]),
    "ts_model_fingerprint": (status, [P, POINTER(FingerprintOptions), POINTER(Fingerprint), E]),
    "ts_array_ggml_ne": (status, [P, A, POINTER(c_int64), POINTER(c_int), E]),
    "ts_role_name": (c_char_p, [c_int]),
    "ts_summary_new": (status, [POINTER(SummaryOptions), POINTER(P), E]),
    "ts_summary_free": (None, [P]),
    "ts_summary_add": (status, [P, c_char_p, A, c_size_t, E]),
    "ts_summary_total": (POINTER(SummarySum), [P]),
    "ts_summary_role": (POINTER(SummarySum), [P, c_int]),
    "ts_summary_dtype_count": (c_size_t, [P]),
    "ts_summary_dtype_at": (c_char_p, [P, c_size_t, POINTER(POINTER(SummarySum))]),
    "ts_summary_largest_count": (c_size_t, [P]),
    "ts_summary_largest": (POINTER(SummaryTensor), [P, c_size_t]),
    "ts_summary_group_count": (c_size_t, [P]),
    "ts_summary_group_at": (POINTER(SummaryGroup), [P, c_size_t]),
    "ts_summary_dtype": (c_char_p, [A]),
    "ts_array_value_kind": (c_int, [A]),
    "ts_array_read": (status, [P, A, c_int64, c_int64, c_int, c_void_p, E]),
    "ts_array_read_raw": (status, [P, A, c_int64, c_int64, c_void_p, E]),
    "ts_array_stats": (status, [P, A, POINTER(StatsOptions), POINTER(Stats), E]),
    "ts_name_selected": (c_int, [c_char_p, POINTER(c_char_p), c_size_t, POINTER(c_char_p),
                                 c_size_t]),
    "ts_namemap_new": (status, [POINTER(P), E]),
    "ts_namemap_free": (None, [P]),
    "ts_namemap_add_prefix": (status, [P, c_char_p, c_unsigned, E]),
    "ts_namemap_add_rename": (status, [P, c_char_p, c_char_p, E]),
    "ts_namemap_read_renames": (status, [P, c_char_p, c_size_t, E]),
    "ts_namemap_apply": (c_void_p, [P, c_unsigned, c_char_p]),
    "ts_namemap_prefix_count": (c_size_t, [P]),
    "ts_namemap_prefix_at": (POINTER(NamemapPrefix), [P, c_size_t]),
    "ts_diff_new": (status, [P, P, POINTER(DiffOptions), POINTER(P), E]),
    "ts_diff_free": (None, [P]),
    "ts_diff_kind_name": (c_char_p, [c_int]),
    "ts_diff_count": (c_size_t, [P]),
    "ts_diff_pair_at": (POINTER(DiffPair), [P, c_size_t]),
    "ts_diff_single": (c_int, [P]),
    "ts_diff_totals_of": (POINTER(DiffTotals), [P]),
    "ts_diff_gguf_names": (c_int, [P]),
    "ts_diff_metrics_group_count": (c_size_t, [P]),
    "ts_diff_metrics_group_at": (POINTER(DiffMetricsGroup), [P, c_size_t]),
    "ts_diff_duplicate_count": (c_size_t, [P]),
    "ts_diff_duplicate_at": (c_char_p, [P, c_size_t, POINTER(c_unsigned), POINTER(c_size_t)]),
    "ts_diff_metadata_count": (c_size_t, [P]),
    "ts_diff_metadata_at": (c_int, [P, c_size_t, POINTER(c_char_p), POINTER(c_char_p),
                                    POINTER(c_char_p)]),
    "ts_diff_compare_values": (status, [P, c_size_t, POINTER(CompareOptions), E]),
    "ts_scan_open": (status, [c_char_p, POINTER(P), E]),
    "ts_scan_close": (None, [P]),
    "ts_scan_class_name": (c_char_p, [c_int]),
    "ts_scan_wo_name": (c_char_p, [c_int]),
    "ts_scan_verdict": (c_int, [P]),
    "ts_scan_error_count": (c_size_t, [P]),
    "ts_scan_file_count": (c_size_t, [P]),
    "ts_scan_file_at": (POINTER(ScanFile), [P, c_size_t]),
    "ts_scan_global_at": (POINTER(ScanGlobal), [P, c_size_t]),
    "ts_scan_finding_at": (POINTER(ScanFinding), [P, c_size_t]),
    "ts_scan_finding_kind_name": (c_char_p, [c_int]),
    "ts_write_check": (status, [POINTER(WriteTensor), POINTER(WriteOptions), E]),
    "ts_stats_summary_new": (status, [c_unsigned, POINTER(P), E]),
    "ts_stats_summary_free": (None, [P]),
    "ts_stats_summary_add": (status, [P, c_char_p, c_char_p, POINTER(Stats), E]),
    "ts_stats_summary_fail": (None, [P]),
    "ts_stats_summary_totals": (POINTER(StatsTotals), [P]),
    "ts_stats_summary_nonfinite_at": (c_char_p, [P, c_size_t]),
    "ts_write": (status, [c_char_p, POINTER(WriteTensor), c_size_t, POINTER(WriteOptions),
                          POINTER(WriteResult), E]),
}


class _Lib:
    """The loaded library: attributes are its functions with prototypes set,
    resolved on first use."""

    def __init__(self, cdll, path):
        self._cdll = cdll
        self.path = path

    def __getattr__(self, name):
        try:
            restype, argtypes = PROTOTYPES[name]
        except KeyError:
            raise AttributeError(name) from None
        try:
            fn = getattr(self._cdll, name)
        except AttributeError:
            from ._errors import UnsupportedError
            raise UnsupportedError(13, "%s: the loaded libtshape (%s) has no %s: a newer "
                                   "library is needed" % (name, self.path, name)) from None
        fn.restype = restype
        fn.argtypes = argtypes
        setattr(self, name, fn)
        return fn


def _candidates():
    env = os.environ.get("TSHAPE_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    own = os.path.join(here, SONAME)
    return ([own] if os.path.exists(own) else []) + [SONAME], False


def load():
    """Loads libtshape (see the module's docstring for the order)."""
    paths, forced = _candidates()
    errors = []
    for p in paths:
        try:
            return _Lib(ctypes.CDLL(p), p)
        except OSError as e:
            errors.append("%s: %s" % (p, e))
            if forced:
                break
    raise ImportError("tshape: cannot load libtshape (%s); build it with `make` and set "
                      "TSHAPE_LIBRARY=build/%s, or install libtshape0"
                      % ("; ".join(errors), SONAME))


lib = load()
