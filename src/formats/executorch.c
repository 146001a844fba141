/*
 * executorch.c - reader for ExecuTorch programs (.pte), header only.
 *
 * A .pte is a FlatBuffer whose root table is executorch_flatbuffer.Program
 * and whose file identifier (bytes 4..8) is "ET12" (executorch
 * schema/program.fbs), walked with the Verifier's checks of flatbuf.c.
 * Bytes 8.. may hold the extended header (schema/extended_header.h): magic
 * "eh00", u32 length (>= 24), u64 program_size (the FlatBuffer's bytes),
 * u64 segment_base_offset (where segments start; 0: none). The fields read,
 * by their ids in program.fbs:
 *   Program            0 version, 1 execution_plan, 2 constant_buffer,
 *                      4 segments, 5 constant_segment, 6 mutable_data_segments
 *   ExecutionPlan      0 name, 2 values, 3 inputs, 4 outputs, 6 operators,
 *                      7 delegates
 *   EValue             0 val_type (KernelTypes: 5 Tensor), 1 val
 *   Tensor             0 scalar_type, 1 storage_offset, 2 sizes, 3 dim_order,
 *                      5 data_buffer_idx, 6 allocation_info, 8 shape_dynamism,
 *                      9 extra_tensor_info
 *   ExtraTensorInfo    0 mutable_data_segments_idx, 1 fully_qualified_name,
 *                      2 location (1: EXTERNAL, in a .ptd file)
 *   Buffer             0 storage
 *   DataSegment        0 offset, 1 size
 *   SubsegmentOffsets  0 segment_index, 1 offsets
 * A constant tensor (data_buffer_idx > 0) keeps its data in
 * constant_buffer[idx].storage inside the FlatBuffer (programs before
 * September 2024), or at constant_segment.offsets[idx] of the segment
 * constant_segment.segment_index, whose bytes are at segment_base_offset +
 * its offset. A mutable tensor with an initial state (allocation_info and
 * data_buffer_idx) is in mutable_data_segments[mutable_data_segments_idx].
 * dim_order lists the dims from outermost to innermost in memory: the
 * strides follow from it.
 *
 * Each constant tensor of each execution plan is an array, named by its
 * fully qualified name, else "<plan>/value<i>"; tensors of plans after the
 * first that name the same buffer as an earlier one are not repeated.
 * Other tensors (inputs, activations) are listed with
 * ts_open_options.want_activations. The dtype is the ScalarType's (c10
 * numbering: runtime/core/portable_type/scalar_type.h) in NumPy spelling;
 * quantized types (QINT8, QUINT8, QINT32, QUINT4X2, QUINT2X4) by their
 * stored integers, named in the note. With --metadata: the program
 * version, the extended header, each plan's name, operators, delegates
 * and inputs and outputs with their dtypes and shapes (upper bounds of
 * dynamic shapes named so).
 */
#include "flatbuf.h"

#include "../core/jansson_lazy.h"
#include <stdio.h>
#include <stdlib.h>

#define ET_WORK_FACTOR 16
#define NAME_BUF 200

/* ScalarType (c10 numbering). */
typedef struct et_type {
    const char *name;
    ts_dtype dtype;            /* TS_DTYPE_UNKNOWN: none (name and bits kept) */
    int bits;
    const char *quant;         /* quantized: what the note says */
} et_type;

static const et_type et_types[] = {
    [0] = {"BYTE", TS_DTYPE_UINT8, 8, NULL},
    [1] = {"CHAR", TS_DTYPE_INT8, 8, NULL},
    [2] = {"SHORT", TS_DTYPE_INT16, 16, NULL},
    [3] = {"INT", TS_DTYPE_INT32, 32, NULL},
    [4] = {"LONG", TS_DTYPE_INT64, 64, NULL},
    [5] = {"HALF", TS_DTYPE_FLOAT16, 16, NULL},
    [6] = {"FLOAT", TS_DTYPE_FLOAT32, 32, NULL},
    [7] = {"DOUBLE", TS_DTYPE_FLOAT64, 64, NULL},
    [8] = {"COMPLEXHALF", TS_DTYPE_UNKNOWN, 32, NULL},
    [9] = {"COMPLEXFLOAT", TS_DTYPE_COMPLEX64, 64, NULL},
    [10] = {"COMPLEXDOUBLE", TS_DTYPE_COMPLEX128, 128, NULL},
    [11] = {"BOOL", TS_DTYPE_BOOL, 8, NULL},
    [12] = {"QINT8", TS_DTYPE_INT8, 8, "quantized int8 (QINT8)"},
    [13] = {"QUINT8", TS_DTYPE_UINT8, 8, "quantized uint8 (QUINT8)"},
    [14] = {"QINT32", TS_DTYPE_INT32, 32, "quantized int32 (QINT32)"},
    [15] = {"BFLOAT16", TS_DTYPE_BFLOAT16, 16, NULL},
    [16] = {"QUINT4X2", TS_DTYPE_UINT4, 4, "quantized uint4, two per byte (QUINT4X2)"},
    [17] = {"QUINT2X4", TS_DTYPE_UINT2, 2, "quantized uint2, four per byte (QUINT2X4)"},
    [22] = {"BITS16", TS_DTYPE_UNKNOWN, 16, NULL},
    [23] = {"FLOAT8E5M2", TS_DTYPE_FLOAT8_E5M2, 8, NULL},
    [24] = {"FLOAT8E4M3FN", TS_DTYPE_FLOAT8_E4M3FN, 8, NULL},
    [25] = {"FLOAT8E5M2FNUZ", TS_DTYPE_FLOAT8_E5M2FNUZ, 8, NULL},
    [26] = {"FLOAT8E4M3FNUZ", TS_DTYPE_FLOAT8_E4M3FNUZ, 8, NULL},
    [27] = {"UINT16", TS_DTYPE_UINT16, 16, NULL},
    [28] = {"UINT32", TS_DTYPE_UINT32, 32, NULL},
    [29] = {"UINT64", TS_DTYPE_UINT64, 64, NULL},
};
#define ET_NTYPES (sizeof et_types / sizeof *et_types)

static int probe_executorch(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    return len >= 8 && memcmp(data + 4, "ET12", 4) == 0;
}

typedef struct et {
    ts__fb fb;
    ts_file *f;
    const ts_open_options *opts;
    ts_error *err;
    size_t len;
    uint64_t program_size, segment_base;
    int has_header;
    /* Program.constant_buffer, segments, constant_segment */
    size_t nbuf, bufs;
    size_t nseg, segs;
    int has_cseg;
    uint32_t cseg_index;
    size_t ncoff, coffs;
    size_t nmut, muts;
    unsigned char *seen;       /* constant buffers reported (by index) */
    json_t *plans;             /* metadata */
} et;

/* Segment i: its absolute offset and size, checked inside the file. */
static ts_status segment(et *r, uint64_t i, const char *who, uint64_t *off, uint64_t *size)
{
    if (i >= r->nseg)
        return ts__error(r->err, TS_ERR_FORMAT, "%s: segment %llu of %zu", who,
                         (unsigned long long)i, r->nseg);
    if (!r->segment_base)
        return ts__error(r->err, TS_ERR_FORMAT, "%s: the data is in segment %llu, but the "
                         "file has no extended header giving the segments' base offset", who,
                         (unsigned long long)i);
    ts__fbt t;
    uint64_t o, n;
    ts_status st = ts__fb_element(&r->fb, r->segs, (size_t)i, "a DataSegment", &t);
    if (!st)
        st = ts__fb_u64(&r->fb, &t, 0, "DataSegment.offset", &o);
    if (!st)
        st = ts__fb_u64(&r->fb, &t, 1, "DataSegment.size", &n);
    if (st)
        return st;
    if (o > r->len || n > r->len || r->segment_base > r->len - o ||
        n > r->len - o - r->segment_base)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)t.pos,
                        "%s: segment %llu (offset %llu, %llu bytes after the base %llu) runs "
                        "past the end of the %zu-byte file", who, (unsigned long long)i,
                        (unsigned long long)o, (unsigned long long)n,
                        (unsigned long long)r->segment_base, r->len);
    *off = r->segment_base + o;
    *size = n;
    return TS_OK;
}

/* The data of a tensor: *off (absolute) and the bytes available there. */
static ts_status tensor_data(et *r, uint32_t idx, int mutable_, uint64_t mut_idx,
                             const char *who, uint64_t *off, uint64_t *avail)
{
    ts_status st;
    if (mutable_) {
        if (mut_idx >= r->nmut)
            return ts__error(r->err, TS_ERR_FORMAT, "%s: mutable_data_segments[%llu] of %zu",
                             who, (unsigned long long)mut_idx, r->nmut);
        ts__fbt t;
        uint32_t si;
        size_t n, v;
        if ((st = ts__fb_element(&r->fb, r->muts, (size_t)mut_idx, "SubsegmentOffsets", &t)) ||
            (st = ts__fb_u32(&r->fb, &t, 0, "segment_index", &si)) ||
            (st = ts__fb_vector_field(&r->fb, &t, 1, 8, "offsets", &n, &v)))
            return st;
        if (idx >= n)
            return ts__error(r->err, TS_ERR_FORMAT, "%s: data_buffer_idx %lu, but the mutable "
                             "segment has %zu offsets", who, (unsigned long)idx, n);
        uint64_t so, ss, o = ts__le64(r->fb.d + v + 8 * (size_t)idx);
        if ((st = segment(r, si, who, &so, &ss)))
            return st;
        if (o > ss)
            return ts__error(r->err, TS_ERR_FORMAT, "%s: offset %llu past its %llu-byte "
                             "segment", who, (unsigned long long)o, (unsigned long long)ss);
        *off = so + o;
        *avail = ss - o;
        return TS_OK;
    }
    if (r->nbuf) {
        if (idx >= r->nbuf)
            return ts__error(r->err, TS_ERR_FORMAT, "%s: data_buffer_idx %lu, but "
                             "constant_buffer has %zu buffers", who, (unsigned long)idx,
                             r->nbuf);
        ts__fbt t;
        size_t n, v;
        if ((st = ts__fb_element(&r->fb, r->bufs, idx, "a Buffer", &t)))
            return st;
        size_t pos;
        if ((st = ts__fb_ref(&r->fb, &t, 0, "Buffer.storage", &pos)))
            return st;
        n = 0;
        v = 0;
        if (pos && (st = ts__fb_vector(&r->fb, pos, 1, "Buffer.storage", &n, &v)))
            return st;
        *off = v;
        *avail = n;
        return TS_OK;
    }
    if (!r->has_cseg || idx >= r->ncoff)
        return ts__error(r->err, TS_ERR_FORMAT, "%s: data_buffer_idx %lu, but the program "
                         "has %zu constant offsets", who, (unsigned long)idx, r->ncoff);
    uint64_t so, ss, o = ts__le64(r->fb.d + r->coffs + 8 * (size_t)idx);
    if ((st = segment(r, r->cseg_index, who, &so, &ss)))
        return st;
    if (o > ss)
        return ts__error(r->err, TS_ERR_FORMAT, "%s: constant offset %llu past its %llu-byte "
                         "segment", who, (unsigned long long)o, (unsigned long long)ss);
    *off = so + o;
    *avail = ss - o;
    return TS_OK;
}

/* The dtype and shape of a Tensor table, for metadata. */
static json_t *tensor_json(et *r, const ts__fbt *t)
{
    int8_t code;
    unsigned u, dyn;
    size_t n, v;
    if (ts__fb_u8(&r->fb, t, 0, "scalar_type", &u) ||
        ts__fb_vector_field(&r->fb, t, 2, 4, "sizes", &n, &v) ||
        ts__fb_u8(&r->fb, t, 8, "shape_dynamism", &dyn))
        return NULL;
    code = (int8_t)u;
    json_t *shape = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(shape, json_integer((int32_t)ts__le32(r->fb.d + v + 4 * i)));
    const et_type *ty = code >= 0 && (size_t)code < ET_NTYPES && et_types[code].name
                            ? &et_types[code] : NULL;
    return json_pack("{s:s?,s:o,s:s}", "dtype",
                     ty ? (ty->dtype != TS_DTYPE_UNKNOWN ? ts_dtype_name(ty->dtype) : ty->name)
                        : NULL,
                     "shape", shape, "shape_dynamism",
                     dyn == 0 ? "static" : dyn == 1 ? "dynamic_bound" : "dynamic_unbound");
}

/* Value i of a plan, a Tensor: reported as an array. */
static ts_status tensor(et *r, const ts__fbt *t, const char *plan, size_t plan_i, size_t i)
{
    char who[NAME_BUF + 64];
    unsigned code_u, dyn, loc = 0;
    uint32_t idx;
    size_t nsizes, sizes, ndo, dos, xpos;
    int32_t so;
    uint32_t so_u;
    const unsigned char *fqn = NULL;
    size_t fqn_n = 0;
    uint64_t mut_idx = 0;
    size_t alloc_pos;
    ts_status st;
    snprintf(who, sizeof who, "plan '%s' value %zu", plan, i);
    if ((st = ts__fb_u8(&r->fb, t, 0, "Tensor.scalar_type", &code_u)) ||
        (st = ts__fb_u32(&r->fb, t, 1, "Tensor.storage_offset", &so_u)) ||
        (st = ts__fb_vector_field(&r->fb, t, 2, 4, "Tensor.sizes", &nsizes, &sizes)) ||
        (st = ts__fb_vector_field(&r->fb, t, 3, 1, "Tensor.dim_order", &ndo, &dos)) ||
        (st = ts__fb_u32(&r->fb, t, 5, "Tensor.data_buffer_idx", &idx)) ||
        (st = ts__fb_ref(&r->fb, t, 6, "Tensor.allocation_info", &alloc_pos)) ||
        (st = ts__fb_u8(&r->fb, t, 8, "Tensor.shape_dynamism", &dyn)) ||
        (st = ts__fb_ref(&r->fb, t, 9, "Tensor.extra_tensor_info", &xpos)))
        return st;
    so = (int32_t)so_u;
    if (xpos) {
        ts__fbt x;
        if ((st = ts__fb_table(&r->fb, xpos, "ExtraTensorInfo", &x)) ||
            (st = ts__fb_u64(&r->fb, &x, 0, "mutable_data_segments_idx", &mut_idx)) ||
            (st = ts__fb_string_field(&r->fb, &x, 1, "fully_qualified_name", &fqn, &fqn_n)) ||
            (st = ts__fb_u8(&r->fb, &x, 2, "location", &loc)))
            return st;
    }
    int constant = idx > 0 && !alloc_pos;
    int external = loc == 1;
    if (idx == 0 && !external && !r->opts->want_activations)
        return TS_OK;
    if (constant && !external && plan_i > 0 && r->seen && idx < r->nbuf + r->ncoff &&
        r->seen[idx])
        return TS_OK;
    if (nsizes > TS_MAX_NDIM)
        return ts__fail(r->err, TS_ERR_NDIM, 0, (int64_t)t->pos, "%s: %zu dims, more than %d",
                        who, nsizes, TS_MAX_NDIM);
    if (ndo && ndo != nsizes)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)t->pos, "%s: dim_order has %zu "
                        "entries for %zu dims", who, ndo, nsizes);
    int64_t dims[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    int used[TS_MAX_NDIM] = {0};
    for (size_t k = 0; k < nsizes; k++) {
        int32_t d = (int32_t)ts__le32(r->fb.d + sizes + 4 * k);
        if (d < 0)
            return ts__fail(r->err, TS_ERR_VALUE, 0, (int64_t)(sizes + 4 * k),
                            "%s: size %zu is %ld", who, k, (long)d);
        dims[k] = d;
    }
    for (size_t k = 0; k < ndo; k++) {
        unsigned dk = r->fb.d[dos + k];
        if (dk >= nsizes || used[dk]++)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)(dos + k), "%s: dim_order is "
                            "not a permutation of the %zu dims", who, nsizes);
    }
    /* strides from dim_order, innermost last (C order without one) */
    int64_t acc = 1;
    for (size_t k = nsizes; k-- > 0;) {
        size_t dk = ndo ? r->fb.d[dos + k] : k;
        strides[dk] = acc;
        if (dims[dk] > 0 && ts__mul_overflow(acc, dims[dk], &acc))
            acc = 1; /* the size check below reports the overflow */
    }
    char nb[NAME_BUF];
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return ts__file_add_failure(r->f);
    if (fqn_n)
        a->name = ts__file_strndup(r->f, (const char *)fqn, fqn_n, r->err);
    else
        a->name = ts__file_printf(r->f, r->err, "%s/value%zu", plan, i);
    if (!a->name)
        return TS_ERR_NOMEM;
    if (fqn_n && plan_i > 0 && !constant) {
        const char *n2 = ts__file_printf(r->f, r->err, "%s/%s", plan, a->name);
        if (!n2)
            return TS_ERR_NOMEM;
        a->name = n2;
    }
    snprintf(who, sizeof who, "tensor '%s'", ts__printable_str(a->name, nb, sizeof nb));
    int8_t code = (int8_t)code_u;
    const et_type *ty = code >= 0 && (size_t)code < ET_NTYPES && et_types[code].name
                            ? &et_types[code] : NULL;
    if (!ty)
        return ts__fail(r->err, TS_ERR_DTYPE, 0, (int64_t)t->pos, "%s: ScalarType %d is not "
                        "one tshape knows", who, code);
    a->format_dtype = ty->name;
    if (ty->dtype != TS_DTYPE_UNKNOWN) {
        ts__array_set_dtype(a, ty->dtype);
    } else {
        a->dtype_name = code == 8 ? "complex32" : "bits16";
        a->bits = ty->bits;
        a->itemsize = ty->bits / 8;
        a->block_size = 1;
        a->block_bytes = a->itemsize;
    }
    a->byteorder = a->itemsize > 1 ? '<' : '|';
    if ((st = ts_shape_assign(&a->shape, dims, (int)nsizes, r->err)) ||
        (ndo && (st = ts_shape_assign(&a->strides, strides, (int)nsizes, r->err))) ||
        (st = ts__array_compute_sizes(a, r->err))) {
        ts__error_prefix(r->err, "%s", who);
        return st;
    }
    if (so != 0)
        return ts__fail(r->err, TS_ERR_UNSUPPORTED, 0, (int64_t)t->pos, "%s: storage_offset "
                        "%ld (the ExecuTorch runtime supports only 0)", who, (long)so);
    int c_order = 1, f_order = ndo == nsizes;
    for (size_t k = 0; k < ndo; k++) {
        c_order &= r->fb.d[dos + k] == k;
        f_order &= r->fb.d[dos + k] == nsizes - 1 - k;
    }
    a->fortran_order = !c_order && f_order && nsizes > 1;
    char note[512] = "";
    size_t nn = 0;
#define NOTE(...) (nn += (size_t)snprintf(note + nn, nn < sizeof note ? sizeof note - nn : 0, \
                                          __VA_ARGS__), nn = nn < sizeof note ? nn : sizeof note)
    if (ty->quant)
        NOTE("%s", ty->quant);
    if (dyn)
        NOTE("%s%s shape: sizes are %s", nn ? "; " : "",
             dyn == 1 ? "dynamic (bounded)" : "dynamic (unbounded)",
             dyn == 1 ? "upper bounds" : "not meaningful");
    if (external) {
        NOTE("%sexternal data (a .ptd file, key '%s'): not read", nn ? "; " : "",
             fqn_n ? a->name : "");
    } else if (idx == 0) {
        NOTE("%sno data in the program (%s)", nn ? "; " : "",
             alloc_pos ? "memory planned" : "an input or a value filled at run time");
    } else {
        uint64_t off = 0, avail = 0;
        int mutable_ = alloc_pos != 0;
        if ((st = tensor_data(r, idx, mutable_, mut_idx, who, &off, &avail)))
            return st;
        if ((uint64_t)a->nbytes > avail)
            return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)off, "%s: %lld bytes at "
                            "byte %llu, but only %llu are there", who, (long long)a->nbytes,
                            (unsigned long long)off, (unsigned long long)avail);
        if (c_order || a->fortran_order)
            a->data_offset = (int64_t)off;
        if (!c_order) {
            ts__data_src ds;
            memset(&ds, 0, sizeof ds);
            ds.kind = TS__SRC_STORED;
            ds.has_storage = 1;
            ds.storage_start = (int64_t)off;
            ds.storage_nbytes = a->nbytes;
            if ((st = ts__file_set_data_src(r->f, a, &ds, r->err)))
                return st;
        }
        if (mutable_)
            NOTE("%smutable, initial state in a mutable data segment", nn ? "; " : "");
        if (r->seen && constant && idx < r->nbuf + r->ncoff)
            r->seen[idx] = 1;
    }
#undef NOTE
    if (nn && !(a->note = ts__file_strndup(r->f, note, strlen(note), r->err)))
        return TS_ERR_NOMEM;
    return TS_OK;
}

/* Indices (the vector of n ints at v) as the tensors they name, for
 * metadata. The plan's tables were walked before (plan()): a lookup that
 * fails anyway leaves the entry without dtype and shape, and the walk's
 * error aside. */
static json_t *io_json(et *r, size_t n, size_t v, size_t vals, size_t nvals)
{
    json_t *out = json_array();
    ts_error quiet, *keep = r->fb.err;
    r->fb.err = &quiet;
    for (size_t i = 0; i < n && i < 4096; i++) {
        int32_t k = (int32_t)ts__le32(r->fb.d + v + 4 * i);
        ts__fbt ev, t;
        unsigned type;
        size_t pos;
        json_t *e = NULL;
        if (k >= 0 && (size_t)k < nvals && !ts__fb_element(&r->fb, vals, (size_t)k, "EValue", &ev) &&
            !ts__fb_u8(&r->fb, &ev, 0, "val_type", &type) && type == 5 &&
            !ts__fb_ref(&r->fb, &ev, 1, "val", &pos) && pos &&
            !ts__fb_table(&r->fb, pos, "Tensor", &t))
            e = tensor_json(r, &t);
        if (!e)
            e = json_object();
        json_object_set_new(e, "value", json_integer(k));
        json_array_append_new(out, e);
    }
    r->fb.err = keep;
    return out;
}

static ts_status plan(et *r, size_t data, size_t p)
{
    ts__fbt t;
    const unsigned char *name;
    size_t name_n, nvals, vals, nops, ops, ndel, dels, nin, ins, nout, outs;
    ts_status st;
    if ((st = ts__fb_element(&r->fb, data, p, "an ExecutionPlan", &t)) ||
        (st = ts__fb_string_field(&r->fb, &t, 0, "ExecutionPlan.name", &name, &name_n)) ||
        (st = ts__fb_vector_field(&r->fb, &t, 2, 4, "ExecutionPlan.values", &nvals, &vals)) ||
        (st = ts__fb_vector_field(&r->fb, &t, 6, 4, "ExecutionPlan.operators", &nops, &ops)) ||
        (st = ts__fb_vector_field(&r->fb, &t, 7, 4, "ExecutionPlan.delegates", &ndel, &dels)) ||
        (st = ts__fb_vector_field(&r->fb, &t, 3, 4, "ExecutionPlan.inputs", &nin, &ins)) ||
        (st = ts__fb_vector_field(&r->fb, &t, 4, 4, "ExecutionPlan.outputs", &nout, &outs)))
        return st;
    char pn[NAME_BUF];
    snprintf(pn, sizeof pn, "%.*s", (int)(name_n < 150 ? name_n : 150),
             name ? (const char *)name : "");
    if (!pn[0])
        snprintf(pn, sizeof pn, "plan%zu", p);
    for (size_t i = 0; i < nvals; i++) {
        ts__fbt ev, tt;
        unsigned type;
        size_t pos;
        if ((st = ts__fb_element(&r->fb, vals, i, "an EValue", &ev)) ||
            (st = ts__fb_u8(&r->fb, &ev, 0, "EValue.val_type", &type)))
            return st;
        if (type != 5)
            continue;
        if ((st = ts__fb_ref(&r->fb, &ev, 1, "EValue.val", &pos)))
            return st;
        if (!pos)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)ev.pos, "plan '%s' value %zu: "
                            "a Tensor EValue without its table", pn, i);
        if ((st = ts__fb_table(&r->fb, pos, "a Tensor", &tt)) ||
            (st = tensor(r, &tt, pn, p, i)))
            return st;
    }
    if (!r->opts->want_metadata)
        return TS_OK;
    json_t *opnames = json_array(), *delids = json_array();
    for (size_t i = 0; i < nops && i < 65536; i++) {
        ts__fbt o;
        const unsigned char *s, *ov;
        size_t sn, on;
        if ((st = ts__fb_element(&r->fb, ops, i, "an Operator", &o)) ||
            (st = ts__fb_string_field(&r->fb, &o, 0, "Operator.name", &s, &sn)) ||
            (st = ts__fb_string_field(&r->fb, &o, 1, "Operator.overload", &ov, &on)))
            break;
        char *text = malloc(sn + on + 2);
        if (!text) {
            st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(text, s ? (const char *)s : "", sn);
        text[sn] = '.';
        memcpy(text + sn + (on ? 1 : 0), ov ? (const char *)ov : "", on);
        text[sn + (on ? 1 : 0) + on] = '\0';
        json_array_append_new(opnames, json_stringn(text, strlen(text)));
        free(text);
    }
    for (size_t i = 0; !st && i < ndel && i < 65536; i++) {
        ts__fbt o;
        const unsigned char *s;
        size_t sn;
        if ((st = ts__fb_element(&r->fb, dels, i, "a BackendDelegate", &o)) ||
            (st = ts__fb_string_field(&r->fb, &o, 0, "BackendDelegate.id", &s, &sn)))
            break;
        json_array_append_new(delids, json_stringn(s ? (const char *)s : "", sn));
    }
    json_t *e = json_pack("{s:s,s:o,s:o,s:I,s:o,s:o}", "name", pn, "inputs",
                          io_json(r, nin, ins, vals, nvals), "outputs",
                          io_json(r, nout, outs, vals, nvals), "values", (json_int_t)nvals,
                          "operators", opnames, "delegates", delids);
    if (!e || json_array_append_new(r->plans, e) != 0)
        return st ? st : ts__error(r->err, TS_ERR_NOMEM, "out of memory");
    return st;
}

static ts_status add_meta(et *r, const char *key, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!text)
        return ts__error(r->err, TS_ERR_NOMEM, "out of memory for the metadata");
    ts_status st = ts__file_add_metadata(r->f, key, strlen(key), text, strlen(text), r->err);
    free(text);
    return st;
}

static ts_status read_executorch(ts_file *f, const unsigned char *data, size_t len,
                                 const ts_open_options *opts, ts_error *err)
{
    et r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.opts = opts;
    r.err = err;
    r.len = len;
    ts__fb_init(&r.fb, f, data, len, ET_WORK_FACTOR, err);
    if (len < 8)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0, "an ExecuTorch program starts with a "
                        "root offset and the identifier ET12 (8 bytes); this one has %zu bytes",
                        len);
    if (memcmp(data + 4, "ET12", 4) != 0) {
        char ib[32];
        return ts__fail(err, TS_ERR_FORMAT, 0, 4, "the FlatBuffer identifier at byte 4 is "
                        "'%s', not ET12", ts__printable((const char *)data + 4, 4, ib, sizeof ib));
    }
    /* the extended header */
    if (len >= 16 && memcmp(data + 8, "eh00", 4) == 0) {
        uint32_t hl = ts__le32(data + 12);
        if (hl < 24 || len < 8 + (uint64_t)hl)
            return ts__fail(err, TS_ERR_FORMAT, 0, 8, "the extended header (eh00) at byte 8 "
                            "says it is %lu bytes (at least 24, inside the file)",
                            (unsigned long)hl);
        r.has_header = 1;
        r.program_size = ts__le64(data + 16);
        r.segment_base = ts__le64(data + 24);
        if (r.program_size > len || r.segment_base > len ||
            (r.segment_base && r.segment_base < r.program_size))
            return ts__fail(err, TS_ERR_TRUNCATED, 0, 16, "the extended header says the "
                            "program is %llu bytes and the segments start at byte %llu, but "
                            "the file has %zu bytes", (unsigned long long)r.program_size,
                            (unsigned long long)r.segment_base, len);
        /* the FlatBuffer's offsets stay inside the program */
        if (r.program_size >= 8)
            r.fb.len = (size_t)r.program_size;
    }
    size_t pos, nplans = 0, plans = 0;
    ts__fbt prog, cs;
    uint32_t version;
    ts_status st = ts__fb_root_version(&r.fb, "the Program table", &prog, &version);
    if (st)
        return st;
    if ((st = ts__fb_ref(&r.fb, &prog, 2, "constant_buffer", &pos)) ||
        (pos && (st = ts__fb_vector(&r.fb, pos, 4, "constant_buffer", &r.nbuf, &r.bufs))) ||
        (pos && (st = ts__fb_need(&r.fb, r.bufs, 4 * (uint64_t)r.nbuf, "constant_buffer"))) ||
        (st = ts__fb_vector_field(&r.fb, &prog, 4, 4, "segments", &r.nseg, &r.segs)) ||
        (st = ts__fb_vector_field(&r.fb, &prog, 6, 4, "mutable_data_segments", &r.nmut,
                                  &r.muts)) ||
        (st = ts__fb_ref(&r.fb, &prog, 5, "constant_segment", &pos)))
        return st;
    if (pos) {
        r.has_cseg = 1;
        if ((st = ts__fb_table(&r.fb, pos, "constant_segment", &cs)) ||
            (st = ts__fb_u32(&r.fb, &cs, 0, "constant_segment.segment_index", &r.cseg_index)) ||
            (st = ts__fb_vector_field(&r.fb, &cs, 1, 8, "constant_segment.offsets", &r.ncoff,
                                      &r.coffs)))
            return st;
    }
    if (r.nbuf + r.ncoff) {
        r.seen = ts__scratch_alloc(f, r.nbuf + r.ncoff, err);
        if (!r.seen)
            return TS_ERR_NOMEM;
        memset(r.seen, 0, r.nbuf + r.ncoff);
    }
    if ((st = ts__fb_ref(&r.fb, &prog, 1, "execution_plan", &pos)) ||
        (pos && (st = ts__fb_vector(&r.fb, pos, 4, "execution_plan", &nplans, &plans))) ||
        (pos && (st = ts__fb_need(&r.fb, plans, 4 * (uint64_t)nplans, "execution_plan"))))
        return st;
    if (opts->want_metadata && !(r.plans = json_array()))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t p = 0; p < nplans && !st; p++)
        st = plan(&r, plans, p);
    if (!st && opts->want_metadata) {
        st = add_meta(&r, "execution_plans", r.plans);
        r.plans = NULL;
        if (!st && r.has_header)
            st = add_meta(&r, "extended_header",
                          json_pack("{s:I,s:I}", "program_size", (json_int_t)r.program_size,
                                    "segment_base_offset", (json_int_t)r.segment_base));
        if (!st)
            st = add_meta(&r, "segments", json_integer((json_int_t)r.nseg));
        if (!st)
            st = add_meta(&r, "constant_buffers",
                          json_integer((json_int_t)(r.nbuf ? r.nbuf : r.ncoff)));
    }
    json_decref(r.plans);
    return st;
}

const ts__reader ts__reader_executorch = {
    {TS_FORMAT_EXECUTORCH, "executorch", ".pte", "identifier ET12 at byte 4",
     "ExecuTorch program (.pte FlatBuffer): constant tensors inline or in segments, "
     "mutable initial states, dim orders", "ScalarType", 0},
    probe_executorch,
    read_executorch,
    0,
};
