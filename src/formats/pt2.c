/*
 * pt2.c - torch.export archives (.pt2, the PT2 Archive of torch >= 2.6),
 * read for the PyTorch reader (pytorch.c), which recognises them by their
 * member <p>/archive_format.
 *
 * Layout (torch/csrc/export/pt2_archive_constants.h, archive_version 0;
 * torch/export/pt2_archive/_package.py; the JSON schema is
 * torch/_export/serde/schema.py): a zip, every member under one folder <p>:
 *   archive_format                     "pt2"
 *   archive_version                    "0"
 *   models/<model>.json                the ExportedProgram
 *   data/weights/<model>_weights_config.json      PayloadConfig
 *   data/weights/weight_<i>            a storage's raw bytes
 *   data/constants/<model>_constants_config.json  PayloadConfig
 *   data/constants/tensor_<i>          a storage's raw bytes
 * A PayloadConfig is {"config": {fqn: PayloadMeta}}, a PayloadMeta
 * {"path_name", "is_param", "use_pickle", "tensor_meta"} and a TensorMeta
 * {"dtype" (ScalarType), "sizes", "strides" (SymInt: {"as_int": n} or
 * {"as_expr": ...}), "storage_offset", "device", "layout",
 * "requires_grad"}. Tensors that share a storage share its member (views:
 * strides and storage offset into it). use_pickle: the member is a
 * torch.save archive of a tensor subclass, not read here.
 *
 * Each weight and constant is an array named by its fqn (prefixed "<model>/"
 * for a model other than "model"): its dtype, shape, strides and storage
 * offset from tensor_meta, its storage the member (storage_key), which
 * must be stored (not deflated) and hold every element the view reaches.
 * With --metadata, each model's graph signature: parameters, buffers,
 * constants and user inputs (with their dtypes and shapes, symbolic dims
 * by name: "s0"), outputs, range constraints of the symbols, the torch and
 * schema versions. JSON is parsed with jansson (its depth limit and
 * JSON_REJECT_DUPLICATES), from members of at most PT2_MAX_JSON bytes.
 */
#include "reader.h"
#include "zip.h"

#include "../core/jansson_lazy.h"
#include <stdio.h>
#include <stdlib.h>

#define PT2_MAX_JSON ((uint64_t)256 << 20)
#define NAME_BUF 200

/* torch/_export/serde/schema.py ScalarType. */
typedef struct pt2_dtype {
    int code;
    const char *name;        /* the enum's name, the format's dtype */
    ts_dtype dtype;          /* TS_DTYPE_UNKNOWN: complex32 */
} pt2_dtype;

static const pt2_dtype pt2_dtypes[] = {
    {1, "BYTE", TS_DTYPE_UINT8},           {2, "CHAR", TS_DTYPE_INT8},
    {3, "SHORT", TS_DTYPE_INT16},          {4, "INT", TS_DTYPE_INT32},
    {5, "LONG", TS_DTYPE_INT64},           {6, "HALF", TS_DTYPE_FLOAT16},
    {7, "FLOAT", TS_DTYPE_FLOAT32},        {8, "DOUBLE", TS_DTYPE_FLOAT64},
    {9, "COMPLEXHALF", TS_DTYPE_UNKNOWN},  {10, "COMPLEXFLOAT", TS_DTYPE_COMPLEX64},
    {11, "COMPLEXDOUBLE", TS_DTYPE_COMPLEX128}, {12, "BOOL", TS_DTYPE_BOOL},
    {13, "BFLOAT16", TS_DTYPE_BFLOAT16},   {28, "UINT16", TS_DTYPE_UINT16},
    {29, "FLOAT8E4M3FN", TS_DTYPE_FLOAT8_E4M3FN}, {30, "FLOAT8E5M2", TS_DTYPE_FLOAT8_E5M2},
    {31, "FLOAT8E4M3FNUZ", TS_DTYPE_FLOAT8_E4M3FNUZ},
    {32, "FLOAT8E5M2FNUZ", TS_DTYPE_FLOAT8_E5M2FNUZ},
};

static const pt2_dtype *find_dtype(json_int_t code)
{
    for (size_t i = 0; i < sizeof pt2_dtypes / sizeof *pt2_dtypes; i++)
        if (pt2_dtypes[i].code == code)
            return &pt2_dtypes[i];
    return NULL;
}

typedef struct pt2 {
    ts_file *f;
    const ts__zip *z;
    const ts_open_options *opts;
    ts_error *err;
    const char *prefix;      /* "<p>/" */
    size_t prefix_len;
    size_t *sorted;          /* member indices by name (scratch) */
    size_t n;
} pt2;

static int cmp_member(const void *a, const void *b, const ts__zip *z)
{
    return strcmp(ts__zip_member_at(z, *(const size_t *)a)->name,
                  ts__zip_member_at(z, *(const size_t *)b)->name);
}

/* qsort has no context argument: an insertion-free merge sort with one. */
static void sort_members(size_t *v, size_t *tmp, size_t n, const ts__zip *z)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_members(v, tmp, h, z);
    sort_members(v + h, tmp, n - h, z);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_member(&v[j], &v[i], z) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* The index of the member named prefix + rest, or -1. */
static long member(const pt2 *r, const char *rest)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *name = ts__zip_member_at(r->z, r->sorted[mid])->name;
        int c = strncmp(name, r->prefix, r->prefix_len);
        if (c == 0)
            c = strcmp(name + r->prefix_len, rest);
        if (c == 0)
            return (long)r->sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Member m parsed as JSON (an object), or NULL with err set. */
static json_t *load_json(pt2 *r, size_t mi)
{
    const ts__zip_member *m = ts__zip_member_at(r->z, mi);
    ts_status st = ts__zip_readable(m, r->err);
    if (st)
        return NULL;
    if (m->size > PT2_MAX_JSON) {
        ts__fail(r->err, TS_ERR_LIMIT, 0, m->local_offset, "%s is %llu bytes, more than "
                 "tshape's limit of 256 MiB for a JSON member", m->name,
                 (unsigned long long)m->size);
        return NULL;
    }
    unsigned char *buf = ts__scratch_alloc(r->f, m->size ? (size_t)m->size : 1, r->err);
    size_t got = 0;
    if (!buf)
        return NULL;
    st = ts__zip_read(r->z, mi, buf, (size_t)m->size, &got, r->err);
    if (st) {
        ts__error_prefix(r->err, "%s", m->name);
        ts__scratch_free(r->f, buf);
        return NULL;
    }
    json_error_t je;
    json_t *v = json_loadb((const char *)buf, got, JSON_REJECT_DUPLICATES, &je);
    ts__scratch_free(r->f, buf);
    if (!v) {
        ts__fail(r->err, TS_ERR_FORMAT, 0, m->data_offset, "%s: not valid JSON at byte %d "
                 "(line %d): %s", m->name, je.position, je.line, je.text);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        ts__fail(r->err, TS_ERR_FORMAT, 0, m->data_offset, "%s is not a JSON object", m->name);
        return NULL;
    }
    return v;
}

/* A SymInt: {"as_int": n} gives n; {"as_expr": {"expr_str": ...}} gives -1
 * and its text in *expr (NULL otherwise). -2: neither (err set). */
static int64_t symint(pt2 *r, json_t *v, const char **expr, const char *who, const char *what)
{
    json_t *i = json_object_get(v, "as_int"), *e = json_object_get(v, "as_expr");
    *expr = NULL;
    if (json_is_integer(i))
        return (int64_t)json_integer_value(i);
    json_t *s = json_object_get(e, "expr_str");
    if (json_is_string(s)) {
        *expr = json_string_value(s);
        return -1;
    }
    ts__error(r->err, TS_ERR_FORMAT, "%s: %s is not a SymInt ({\"as_int\": n} or "
              "{\"as_expr\": ...})", who, what);
    return -2;
}

/* A list of SymInts into dims (static only). */
static ts_status int_list(pt2 *r, json_t *v, int64_t *dims, int *ndim, const char *who,
                          const char *what)
{
    if (!json_is_array(v))
        return ts__error(r->err, TS_ERR_FORMAT, "%s: tensor_meta has no list \"%s\"", who, what);
    if (json_array_size(v) > TS_MAX_NDIM)
        return ts__error(r->err, TS_ERR_NDIM, "%s: %s has %zu dims, more than %d", who, what,
                         json_array_size(v), TS_MAX_NDIM);
    for (size_t i = 0; i < json_array_size(v); i++) {
        const char *expr;
        int64_t d = symint(r, json_array_get(v, i), &expr, who, what);
        if (d == -2)
            return TS_ERR_FORMAT;
        if (expr)
            return ts__error(r->err, TS_ERR_FORMAT, "%s: %s[%zu] is symbolic ('%s'), but a "
                             "stored tensor has fixed %s", who, what, i, expr, what);
        if (d < 0 && strcmp(what, "strides") != 0)
            return ts__error(r->err, TS_ERR_VALUE, "%s: %s[%zu] is %lld", who, what, i,
                             (long long)d);
        if (d < 0)
            return ts__error(r->err, TS_ERR_VALUE, "%s: stride %zu is %lld (torch has no "
                             "negative strides)", who, i, (long long)d);
        dims[i] = d;
    }
    *ndim = (int)json_array_size(v);
    return TS_OK;
}

/* One PayloadMeta of a config in `dir` ("data/weights/"). */
static ts_status payload(pt2 *r, const char *dir, const char *model, const char *fqn,
                         json_t *meta, int constant)
{
    char who[NAME_BUF + 16], nb[NAME_BUF];
    snprintf(who, sizeof who, "'%s'", ts__printable_str(fqn, nb, sizeof nb));
    json_t *path = json_object_get(meta, "path_name"), *tm = json_object_get(meta, "tensor_meta");
    json_t *pickled = json_object_get(meta, "use_pickle"), *param = json_object_get(meta, "is_param");
    if (!json_is_string(path))
        return ts__error(r->err, TS_ERR_FORMAT, "%s: payload has no \"path_name\"", who);
    if (!json_is_object(tm))
        return ts__error(r->err, TS_ERR_FORMAT, "%s: no tensor_meta (a custom object, not a "
                         "tensor: not reported)", who);
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = strcmp(model, "model") == 0
                  ? ts__file_strndup(r->f, fqn, strlen(fqn), r->err)
                  : ts__file_printf(r->f, r->err, "%s/%s", model, fqn);
    if (!a->name)
        return TS_ERR_NOMEM;
    json_t *dt = json_object_get(tm, "dtype");
    const pt2_dtype *d = json_is_integer(dt) ? find_dtype(json_integer_value(dt)) : NULL;
    if (!d)
        return ts__error(r->err, TS_ERR_DTYPE, "%s: tensor_meta dtype %s is not a ScalarType "
                         "tshape knows", who, json_is_integer(dt) ? "code" : "(missing)");
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    int ndim = 0, nstr = 0;
    ts_status st;
    if ((st = int_list(r, json_object_get(tm, "sizes"), shape, &ndim, who, "sizes")) ||
        (st = int_list(r, json_object_get(tm, "strides"), strides, &nstr, who, "strides")))
        return st;
    if (nstr != ndim)
        return ts__error(r->err, TS_ERR_FORMAT, "%s: %d sizes but %d strides", who, ndim, nstr);
    const char *expr;
    json_t *so = json_object_get(tm, "storage_offset");
    int64_t offset = so ? symint(r, so, &expr, who, "storage_offset") : 0;
    if (offset == -2)
        return TS_ERR_FORMAT;
    if (offset < 0)
        return ts__error(r->err, TS_ERR_FORMAT, "%s: storage_offset is symbolic or negative",
                         who);
    a->format_dtype = d->name;
    if (d->dtype != TS_DTYPE_UNKNOWN) {
        ts__array_set_dtype(a, d->dtype);
    } else { /* torch.complex32 */
        a->dtype_name = "complex32";
        a->bits = 32;
        a->itemsize = 4;
        a->block_size = 1;
        a->block_bytes = 4;
    }
    a->byteorder = a->itemsize > 1 ? '<' : '|';
    if ((st = ts_shape_assign(&a->shape, shape, ndim, r->err)) ||
        (st = ts_shape_assign(&a->strides, strides, ndim, r->err)) ||
        (st = ts__array_compute_sizes(a, r->err))) {
        ts__error_prefix(r->err, "%s", who);
        return st;
    }
    a->storage_offset = offset;
    char rest[1024];
    snprintf(rest, sizeof rest, "%s%s", dir, json_string_value(path));
    long mi = member(r, rest);
    const ts__zip_member *m = mi >= 0 ? ts__zip_member_at(r->z, (size_t)mi) : NULL;
    char pb[NAME_BUF];
    if (!m || strlen(json_string_value(path)) >= sizeof rest - strlen(dir) ||
        strchr(json_string_value(path), '/'))
        return ts__error(r->err, TS_ERR_FORMAT, "%s: its payload %s%s is not in the archive",
                         who, dir, ts__printable_str(json_string_value(path), pb, sizeof pb));
    /* the zip's names go with it: a copy owned by the file (views of one
     * storage share it) */
    ts_array *prev = ts_file_count(r->f) > 1 ? ts__file_array_mut(r->f, ts_file_count(r->f) - 2)
                                              : NULL;
    a->storage_key = prev && prev->storage_key && strcmp(prev->storage_key, m->name) == 0
                         ? prev->storage_key
                         : ts__file_strndup(r->f, m->name, strlen(m->name), r->err);
    if (!a->storage_key)
        return TS_ERR_NOMEM;
    if (json_is_true(pickled)) {
        a->note = ts__file_printf(r->f, r->err, "%s%spickled (a tensor subclass saved with "
                                  "torch.save in %s): not read", constant ? "constant; " : "",
                                  json_is_true(param) ? "parameter; " : "", m->name);
        return a->note ? TS_OK : TS_ERR_NOMEM;
    }
    /* the elements the view reaches must lie in the storage */
    int64_t last = offset, need = 0;
    if (a->size > 0) {
        for (int i = 0; i < ndim; i++) {
            int64_t step;
            if (ts__mul_overflow(shape[i] - 1, strides[i], &step) ||
                ts__add_overflow(last, step, &last))
                return ts__error(r->err, TS_ERR_OVERFLOW, "%s: tensor geometry overflows int64",
                                 who);
        }
        if (ts__add_overflow(last, 1, &need) || ts__mul_overflow(need, a->itemsize, &need))
            return ts__error(r->err, TS_ERR_OVERFLOW, "%s: tensor geometry overflows int64", who);
        if (a->itemsize == 0)
            need = 0;
    }
    if ((uint64_t)need > m->size) {
        char sh[TS__SHAPE_STR_MAX], sd[TS__SHAPE_STR_MAX];
        return ts__fail(r->err, TS_ERR_FORMAT, 0, m->local_offset, "%s: shape %s, strides %s "
                        "and storage offset %lld need %lld bytes of %s, which holds %llu", who,
                        ts__dims_str(shape, ndim, sh, sizeof sh),
                        ts__dims_str(strides, ndim, sd, sizeof sd), (long long)offset,
                        (long long)need, m->name, (unsigned long long)m->size);
    }
    if (m->method != TS__ZIP_STORED)
        return ts__fail(r->err, TS_ERR_UNSUPPORTED, 0, m->local_offset, "%s: member %s is %s, "
                        "not stored (torch writes its payloads stored)", who, m->name,
                        ts__zip_method_name(m->method));
    /* C or F contiguous: the first element's byte is the data's start (an
     * empty tensor's other dims may overflow the products: not contiguous) */
    int64_t off, want = 1, fwant = 1;
    int c_contig = 1, f_contig = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        c_contig &= shape[i] == 1 || strides[i] == want;
        if (ts__mul_overflow(want, shape[i] > 0 ? shape[i] : 1, &want))
            c_contig = f_contig = 0, want = 1;
    }
    for (int i = 0; i < ndim; i++) {
        f_contig &= shape[i] == 1 || strides[i] == fwant;
        if (ts__mul_overflow(fwant, shape[i] > 0 ? shape[i] : 1, &fwant))
            c_contig = f_contig = 0, fwant = 1;
    }
    a->fortran_order = !c_contig && f_contig;
    if ((c_contig || f_contig) && !ts__mul_overflow(offset, a->itemsize, &off))
        a->data_offset = m->data_offset + off;
    ts__data_src src;
    memset(&src, 0, sizeof src);
    src.kind = TS__SRC_STORED;
    src.storage_nbytes = (int64_t)m->size;
    src.has_storage = 1;
    src.storage_start = m->data_offset;
    if ((st = ts__file_set_data_src(r->f, a, &src, r->err)))
        return st;
    if (constant || json_is_false(param)) {
        a->note = constant ? "constant" : "buffer";
    }
    return TS_OK;
}

/* One PayloadConfig member. */
static ts_status config(pt2 *r, size_t mi, const char *dir, const char *model, int constant)
{
    const ts__zip_member *m = ts__zip_member_at(r->z, mi);
    json_t *root = load_json(r, mi);
    if (!root)
        return r->err->code;
    json_t *cfg = json_object_get(root, "config");
    ts_status st = TS_OK;
    if (!json_is_object(cfg))
        st = ts__fail(r->err, TS_ERR_FORMAT, 0, m->data_offset, "%s has no object \"config\"",
                      m->name);
    const char *fqn;
    json_t *meta;
    json_object_foreach(cfg, fqn, meta) {
        if (st)
            break;
        if (json_is_object(meta) && !json_is_object(json_object_get(meta, "tensor_meta")))
            continue; /* a custom object (pickled): no tensor */
        if (!json_is_object(meta))
            st = ts__fail(r->err, TS_ERR_FORMAT, 0, m->data_offset, "%s: entry is not an object",
                          m->name);
        else
            st = payload(r, dir, model, fqn, meta, constant);
        if (st)
            ts__error_prefix(r->err, "%s", m->name);
    }
    json_decref(root);
    return st;
}

/* "<p>/data/weights/<model>_weights_config.json" -> model, or 0. */
static int config_model(const char *rest, const char *dir, const char *suffix, char *model,
                        size_t cap)
{
    size_t dl = strlen(dir), sl = strlen(suffix), n = strlen(rest);
    if (n <= dl + sl || strncmp(rest, dir, dl) != 0 || strcmp(rest + n - sl, suffix) != 0 ||
        n - dl - sl >= cap || memchr(rest + dl, '/', n - dl - sl))
        return 0;
    memcpy(model, rest + dl, n - dl - sl);
    model[n - dl - sl] = '\0';
    return 1;
}

/* The dtype and shape of a graph tensor (graph.tensor_values[name]) as
 * JSON: {"dtype": "float32", "shape": [n, "s0", ...]}; NULL when absent. */
static json_t *tensor_value(json_t *graph, const char *name)
{
    json_t *tm = json_object_get(json_object_get(graph, "tensor_values"), name);
    if (!json_is_object(tm))
        return NULL;
    json_t *dt = json_object_get(tm, "dtype"), *sizes = json_object_get(tm, "sizes");
    const pt2_dtype *d = json_is_integer(dt) ? find_dtype(json_integer_value(dt)) : NULL;
    json_t *shape = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(sizes, i, s) {
        json_t *v = json_object_get(s, "as_int"), *e = json_object_get(s, "as_expr");
        json_t *x = json_object_get(e, "expr_str");
        json_array_append_new(shape, json_is_integer(v) ? json_integer(json_integer_value(v))
                                     : json_is_string(x) ? json_string(json_string_value(x))
                                                         : json_null());
    }
    return json_pack("{s:s?,s:o}", "dtype",
                     d ? (d->dtype != TS_DTYPE_UNKNOWN ? ts_dtype_name(d->dtype) : "complex32")
                       : NULL,
                     "shape", shape);
}

/* The spec's argument name: arg.name, or arg.as_tensor.name (user inputs). */
static const char *arg_name(json_t *spec)
{
    json_t *arg = json_object_get(spec, "arg");
    json_t *n = json_object_get(arg, "name");
    if (!json_is_string(n))
        n = json_object_get(json_object_get(arg, "as_tensor"), "name");
    if (!json_is_string(n))
        n = json_object_get(json_object_get(arg, "as_sym_int"), "as_name");
    return json_is_string(n) ? json_string_value(n) : NULL;
}

static ts_status add_meta(pt2 *r, const char *model, const char *key, json_t *v)
{
    char k[256];
    if (strcmp(model, "model") == 0)
        snprintf(k, sizeof k, "%s", key);
    else
        snprintf(k, sizeof k, "%.200s.%s", model, key);
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!text)
        return ts__error(r->err, TS_ERR_NOMEM, "out of memory for the metadata");
    ts_status st = ts__file_add_metadata(r->f, k, strlen(k), text, strlen(text), r->err);
    free(text);
    return st;
}

/* The graph signature of models/<model>.json as metadata. */
static ts_status signature(pt2 *r, size_t mi, const char *model)
{
    json_t *ep = load_json(r, mi);
    if (!ep)
        return r->err->code;
    json_t *gm = json_object_get(ep, "graph_module");
    json_t *graph = json_object_get(gm, "graph"), *sig = json_object_get(gm, "signature");
    json_t *ins = json_array(), *outs = json_array();
    size_t i;
    json_t *spec;
    static const char *const in_kinds[][2] = {
        {"user_input", NULL},           {"parameter", "parameter_name"},
        {"buffer", "buffer_name"},      {"tensor_constant", "tensor_constant_name"},
        {"custom_obj", "custom_obj_name"}, {"token", NULL}, {"constant_input", NULL}};
    static const char *const out_kinds[][2] = {
        {"user_output", NULL},
        {"loss_output", NULL},
        {"buffer_mutation", "buffer_name"},
        {"gradient_to_parameter", "parameter_name"},
        {"gradient_to_user_input", "user_input_name"},
        {"user_input_mutation", "user_input_name"},
        {"token", NULL},
        {"parameter_mutation", "parameter_name"}};
    for (int out = 0; out < 2; out++) {
        json_t *list = json_object_get(sig, out ? "output_specs" : "input_specs");
        size_t nk = out ? sizeof out_kinds / sizeof *out_kinds : sizeof in_kinds / sizeof *in_kinds;
        json_array_foreach(list, i, spec) {
            for (size_t k = 0; k < nk; k++) {
                const char *kind = out ? out_kinds[k][0] : in_kinds[k][0];
                const char *tkey = out ? out_kinds[k][1] : in_kinds[k][1];
                json_t *s = json_object_get(spec, kind);
                if (!s)
                    continue;
                const char *name = arg_name(s);
                if (!name && strcmp(kind, "constant_input") == 0) {
                    json_t *n = json_object_get(s, "name");
                    name = json_is_string(n) ? json_string_value(n) : NULL;
                }
                json_t *target = tkey ? json_object_get(s, tkey) : NULL;
                json_t *e = json_pack("{s:s,s:s?,s:O?}", "kind", kind, "name", name, "target",
                                      json_is_string(target) ? target : NULL);
                json_t *tv = name && (k == 0) ? tensor_value(graph, name) : NULL;
                if (e && tv)
                    json_object_update(e, tv);
                json_decref(tv);
                json_array_append_new(out ? outs : ins, e);
                break;
            }
        }
    }
    ts_status st = add_meta(r, model, "graph_signature.inputs", ins);
    if (!st)
        st = add_meta(r, model, "graph_signature.outputs", outs);
    else
        json_decref(outs);
    json_t *rc = json_object_get(ep, "range_constraints");
    if (!st && json_is_object(rc))
        st = add_meta(r, model, "range_constraints", json_incref(rc));
    json_t *tv = json_object_get(ep, "torch_version");
    if (!st && json_is_string(tv))
        st = add_meta(r, model, "torch_version", json_incref(tv));
    json_t *sv = json_object_get(ep, "schema_version");
    if (!st && json_is_object(sv))
        st = add_meta(r, model, "schema_version", json_incref(sv));
    json_decref(ep);
    return st;
}

ts_status ts__read_pt2(ts_file *f, const ts__zip *z, const char *prefix, size_t prefix_len,
                       const ts_open_options *opts, ts_error *err)
{
    pt2 r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.z = z;
    r.opts = opts;
    r.err = err;
    r.n = ts__zip_count(z);
    char *p = ts__scratch_alloc(f, prefix_len + 2, err);
    size_t *tmp = ts__scratch_alloc(f, (r.n ? r.n : 1) * sizeof *tmp, err);
    r.sorted = ts__scratch_alloc(f, (r.n ? r.n : 1) * sizeof *r.sorted, err);
    if (!p || !tmp || !r.sorted)
        return TS_ERR_NOMEM;
    memcpy(p, prefix, prefix_len);
    p[prefix_len] = '/';
    p[prefix_len + 1] = '\0';
    r.prefix = p;
    r.prefix_len = prefix_len + 1;
    for (size_t i = 0; i < r.n; i++)
        r.sorted[i] = i;
    sort_members(r.sorted, tmp, r.n, z);
    ts__scratch_free(f, tmp);

    char version[16] = "";
    long vi = member(&r, "archive_version");
    size_t got = 0;
    ts_status st = vi >= 0 ? ts__zip_read(z, (size_t)vi, (unsigned char *)version,
                                          sizeof version - 1, &got, err)
                           : TS_OK;
    if (st)
        return st;
    version[got] = '\0';
    for (size_t i = 0; i < got; i++)
        if (version[i] < '0' || version[i] > '9')
            version[i] = '\0';
    const char *vt = ts__file_printf(f, err, "pt2 %s", version[0] ? version : "0");
    if (!vt)
        return TS_ERR_NOMEM;
    ts__file_set_version(f, vt);

    /* weights, then constants, in member order */
    for (int pass = 0; pass < 2 && !st; pass++) {
        const char *dir = pass ? "data/constants/" : "data/weights/";
        const char *suffix = pass ? "_constants_config.json" : "_weights_config.json";
        for (size_t i = 0; i < r.n && !st; i++) {
            const ts__zip_member *m = ts__zip_member_at(z, i);
            char model[256];
            if (strncmp(m->name, r.prefix, r.prefix_len) != 0 ||
                !config_model(m->name + r.prefix_len, dir, suffix, model, sizeof model))
                continue;
            st = config(&r, i, dir, model, pass);
        }
    }
    for (size_t i = 0; i < r.n && !st && opts->want_metadata; i++) {
        const ts__zip_member *m = ts__zip_member_at(z, i);
        char model[256];
        if (strncmp(m->name, r.prefix, r.prefix_len) == 0 &&
            config_model(m->name + r.prefix_len, "models/", ".json", model, sizeof model))
            st = signature(&r, i, model);
    }
    return st;
}
