/*
 * openvino.c - reader for OpenVINO IR models (model.xml + model.bin),
 * header only: the XML is read, the .bin is only checked to be long enough.
 *
 * Layout (OpenVINO docs "OpenVINO IR format" and operation spec Constant-1;
 * the serializer, src/core/src/pass/serialize.cpp): a <net name version>
 * root holds <layers> of <layer id name type version>, each with a <data>
 * element of attributes, <input>/<output> ports of <dim> elements, and
 * <edges>. A layer of type "Const" (the spec's "Constant") produces a
 * tensor whose bytes are `size` bytes at `offset` of the weights file, the
 * .bin of the same stem beside the .xml, with data attributes
 * element_type and shape (IR v10 files of 2020 may leave them out: then
 * the output port's precision and dims say them). Layers inside a
 * TensorIterator/Loop <body> (If: then_body, else_body) are read too, their
 * names prefixed with the outer layer's name and "/".
 *
 * Each Const layer is an array: its name, the element type in NumPy
 * spelling (format_dtype keeps OpenVINO's: "f32", "u4", "nf4"), its shape,
 * data_offset its offset in the .bin and storage_key the .bin's name. Its
 * size must be what the shape and type need, and the .bin must hold it.
 * Sub-byte types pack values from the low bits (all but u1, whose first
 * value is the high bit: element_iterator.hpp, is_lsb_packed), which is
 * tshape's int4/uint4/uint2/float4 order; u1, u3, u6 and nf4 (indices of
 * the NF4 table) have no tshape dtype: reported by name and bits, their
 * values not read. Parameter and Result layers are the model's inputs and
 * outputs (--metadata graph.inputs, graph.outputs), with partial shapes:
 * "?" for a dynamic dim, "a..b" for a range, "..." for a dynamic rank.
 *
 * The XML goes through libexpat, loaded with dlopen on the first .xml (so
 * start-up does not pay for it), over a copy of the bytes in the reader's
 * scratch memory (a file that shrinks faults in the copy, never inside
 * expat). A document that declares entities is refused: IR has none, and
 * it is how XML bombs start.
 */
#include "reader.h"

#include <dlfcn.h>
#include <errno.h>
#include <expat.h>
#include "../core/jansson_lazy.h"
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define NAME_BUF 200
/* Elements nested deeper than this are refused (IR needs about 12 per
 * level of body). */
#define OV_MAX_DEPTH 256
/* Layers nested in bodies deeper than this are refused. */
#define OV_MAX_NEST 16

/* ---- libexpat, loaded when first needed ------------------------------------ */

#define XML_FUNCS(X)                                                                      \
    X(XML_Parser, XML_ParserCreate, (const XML_Char *))                                   \
    X(void, XML_ParserFree, (XML_Parser))                                                 \
    X(void, XML_SetUserData, (XML_Parser, void *))                                        \
    X(void, XML_SetElementHandler, (XML_Parser, XML_StartElementHandler,                  \
                                    XML_EndElementHandler))                               \
    X(void, XML_SetCharacterDataHandler, (XML_Parser, XML_CharacterDataHandler))          \
    X(void, XML_SetEntityDeclHandler, (XML_Parser, XML_EntityDeclHandler))                \
    X(enum XML_Status, XML_Parse, (XML_Parser, const char *, int, int))                   \
    X(enum XML_Status, XML_StopParser, (XML_Parser, XML_Bool))                            \
    X(enum XML_Error, XML_GetErrorCode, (XML_Parser))                                     \
    X(const XML_LChar *, XML_ErrorString, (enum XML_Error))                               \
    X(XML_Index, XML_GetCurrentByteIndex, (XML_Parser))                                   \
    X(XML_Size, XML_GetCurrentLineNumber, (XML_Parser))

typedef struct xml_api {
#define X(ret, name, args) ret(*name) args;
    XML_FUNCS(X)
#undef X
} xml_api;

static xml_api xml;
static int xml_state; /* 1 loaded, -1 failed */
static char xml_error[200];

static void load_xml_once(void)
{
    void *h = dlopen("libexpat.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(xml_error, sizeof xml_error,
                 "reading OpenVINO IR needs the expat XML library (libexpat.so.1; Debian: apt "
                 "install libexpat1), which is not installed");
        xml_state = -1;
        return;
    }
    /* dlsym returns void *; memcpy into the function pointer, as hdf5.c */
#define X(ret, name, args)                                                                \
    {                                                                                     \
        void *sym = dlsym(h, #name);                                                      \
        if (!sym) {                                                                       \
            snprintf(xml_error, sizeof xml_error, "the expat library lacks %s", #name);   \
            xml_state = -1;                                                               \
            return;                                                                       \
        }                                                                                 \
        memcpy(&xml.name, &sym, sizeof sym);                                              \
    }
    XML_FUNCS(X)
#undef X
    xml_state = 1;
}

static ts_status load_xml(ts_error *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_xml_once);
    return xml_state < 0 ? ts__error(err, TS_ERR_UNSUPPORTED, "%s", xml_error) : TS_OK;
}

/* ---- element types ------------------------------------------------------------ */

/* An element type of the IR (ov::element::Type's names, element_type.cpp),
 * its precision name in IR v10 ports, and what tshape makes of it. */
typedef struct ov_type {
    const char *name, *precision;
    ts_dtype dtype;            /* TS_DTYPE_UNKNOWN: no tshape dtype */
    const char *unknown_name;  /* for TS_DTYPE_UNKNOWN */
    int bits;                  /* for TS_DTYPE_UNKNOWN; 0: size in the data */
} ov_type;

static const ov_type ov_types[] = {
    {"f32", "FP32", TS_DTYPE_FLOAT32, NULL, 0},
    {"f16", "FP16", TS_DTYPE_FLOAT16, NULL, 0},
    {"bf16", "BF16", TS_DTYPE_BFLOAT16, NULL, 0},
    {"f64", "FP64", TS_DTYPE_FLOAT64, NULL, 0},
    {"i8", "I8", TS_DTYPE_INT8, NULL, 0},
    {"i16", "I16", TS_DTYPE_INT16, NULL, 0},
    {"i32", "I32", TS_DTYPE_INT32, NULL, 0},
    {"i64", "I64", TS_DTYPE_INT64, NULL, 0},
    {"u8", "U8", TS_DTYPE_UINT8, NULL, 0},
    {"u16", "U16", TS_DTYPE_UINT16, NULL, 0},
    {"u32", "U32", TS_DTYPE_UINT32, NULL, 0},
    {"u64", "U64", TS_DTYPE_UINT64, NULL, 0},
    {"boolean", "BOOL", TS_DTYPE_BOOL, NULL, 0},
    {"i4", "I4", TS_DTYPE_INT4, NULL, 0},
    {"u4", "U4", TS_DTYPE_UINT4, NULL, 0},
    {"u2", "U2", TS_DTYPE_UINT2, NULL, 0},
    {"f8e4m3", "F8E4M3", TS_DTYPE_FLOAT8_E4M3FN, NULL, 0},
    {"f8e5m2", "F8E5M2", TS_DTYPE_FLOAT8_E5M2, NULL, 0},
    {"f8e8m0", "F8E8M0", TS_DTYPE_FLOAT8_E8M0FNU, NULL, 0},
    {"f4e2m1", "F4E2M1", TS_DTYPE_FLOAT4_E2M1FN, NULL, 0},
    {"u1", "BIN", TS_DTYPE_UNKNOWN, "uint1", 1},
    {"u3", "U3", TS_DTYPE_UNKNOWN, "uint3", 3},
    {"u6", "U6", TS_DTYPE_UNKNOWN, "uint6", 6},
    {"nf4", "NF4", TS_DTYPE_UNKNOWN, "nf4", 4},
    {"string", "STRING", TS_DTYPE_UNKNOWN, "string", 0},
};

static const ov_type *find_type(const char *s, int precision)
{
    for (size_t i = 0; i < sizeof ov_types / sizeof *ov_types; i++)
        if (strcmp(precision ? ov_types[i].precision : ov_types[i].name, s) == 0)
            return &ov_types[i];
    return NULL;
}

static const char *type_dtype_name(const ov_type *t)
{
    return t->dtype == TS_DTYPE_UNKNOWN ? t->unknown_name : ts_dtype_name(t->dtype);
}

/* ---- the probe ------------------------------------------------------------------ */

/* Skips an XML declaration, comments and whitespace; 1 when the first
 * element is <net followed by whitespace or '>' (a model.xml). */
static int probe_openvino(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    const char *s = (const char *)data;
    size_t n = len < TS__HEAD_MIN ? len : TS__HEAD_MIN, i = 0;
    if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
            i++;
        if (i + 4 <= n && memcmp(s + i, "<!--", 4) == 0) {
            const char *e = NULL;
            for (size_t k = i + 4; k + 3 <= n && !e; k++)
                if (memcmp(s + k, "-->", 3) == 0)
                    e = s + k + 3;
            if (!e)
                return 0;
            i = (size_t)(e - s);
        } else if (i + 9 <= n && memcmp(s + i, "<!DOCTYPE", 9) == 0) {
            /* up to '>', or "]>" after an internal subset (the reader then
             * refuses its entities) */
            size_t k = i + 9;
            while (k < n && s[k] != '>' && s[k] != '[')
                k++;
            if (k < n && s[k] == '[')
                while (k + 1 < n && !(s[k] == ']' && s[k + 1] == '>'))
                    k++;
            if (k >= n || (s[k] != '>' && k + 1 >= n))
                return 0;
            i = k + (s[k] == '>' ? 1 : 2);
        } else if (i + 2 <= n && memcmp(s + i, "<?", 2) == 0) {
            const char *e = NULL;
            for (size_t k = i + 2; k + 2 <= n && !e; k++)
                if (memcmp(s + k, "?>", 2) == 0)
                    e = s + k + 2;
            if (!e)
                return 0;
            i = (size_t)(e - s);
        } else {
            break;
        }
    }
    return i + 5 <= n && memcmp(s + i, "<net", 4) == 0 &&
           (s[i + 4] == ' ' || s[i + 4] == '>' || s[i + 4] == '\t' || s[i + 4] == '\n' ||
            s[i + 4] == '\r');
}

/* ---- the reader ------------------------------------------------------------------ */

typedef enum ov_elem {
    OV_OTHER, OV_NET, OV_LAYERS, OV_LAYER, OV_DATA, OV_INPUT, OV_OUTPUT, OV_PORT, OV_DIM,
    OV_BODY
} ov_elem;

typedef enum ov_kind { OV_K_OTHER, OV_K_CONST, OV_K_PARAM, OV_K_RESULT } ov_kind;

/* A layer being read (layers nest in bodies). */
typedef struct ov_layer {
    const char *name;          /* with its prefix, storage of f */
    ov_kind kind;
    int64_t at;                /* byte of its start tag */
    unsigned long line;        /* and its line */
    const ov_type *type;       /* data element_type, or NULL */
    int has_shape;
    json_t *pshape;            /* Parameter: data shape, partial */
    int ndim;                  /* Const: data shape */
    int64_t dims[TS_MAX_NDIM];
    int has_offset, has_size;
    int64_t offset, size;
    /* its first port of <output> (Const, Parameter) or <input> (Result) */
    int ports;                 /* ports seen in that list */
    int in_port;               /* 1 while inside that first port */
    const ov_type *port_type;
    json_t *port_dims;         /* partial dims, or NULL */
    int port_ndim;
    int64_t port_static[TS_MAX_NDIM];
    int port_dynamic;          /* a dim that is not a number */
} ov_layer;

typedef struct ov {
    ts_file *f;
    const ts_open_options *opts;
    ts_error *err;
    ts_status st;              /* the first error a handler met */
    XML_Parser p;
    ov_elem stack[OV_MAX_DEPTH];
    int depth;
    ov_layer layers[OV_MAX_NEST];
    int nest;                  /* layers open */
    char text[64];             /* a <dim>'s text */
    size_t text_n;
    int text_long;
    const char *net_name, *version;
    size_t nlayers, nconst;
    json_t *io[2];             /* graph.inputs, graph.outputs */
    /* the weights file: its name (storage of f), size, side id */
    const char *bin;
    int bin_located;
    int64_t bin_size;
    int32_t side;
} ov;

static int64_t here(const ov *r)
{
    return (int64_t)xml.XML_GetCurrentByteIndex(r->p);
}

/* Records the first error and stops the parser. */
static void stop(ov *r, ts_status st)
{
    if (!r->st)
        r->st = st ? st : TS_ERR_FORMAT;
    xml.XML_StopParser(r->p, XML_FALSE);
}

/* Records error `code` at byte `at` (the message starts with the line of
 * the event being parsed, or of the layer) and stops the parser. */
static void vfail_at(ov *r, int64_t at, unsigned long line, ts_status code, const char *fmt,
                     va_list ap) TS__PRINTF(5, 0);
static void vfail_at(ov *r, int64_t at, unsigned long line, ts_status code, const char *fmt,
                     va_list ap)
{
    if (r->st)
        return;
    ts__vfail(r->err, code, 0, at, fmt, ap);
    ts__error_prefix(r->err, "line %lu", line);
    stop(r, code);
}

static void fail(ov *r, ts_status code, const char *fmt, ...) TS__PRINTF(3, 4);
static void fail(ov *r, ts_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, here(r), (unsigned long)xml.XML_GetCurrentLineNumber(r->p), code, fmt, ap);
    va_end(ap);
}

/* The same at the start of the layer the error is about. */
static void fail_layer(ov *r, const ov_layer *l, ts_status code, const char *fmt, ...)
    TS__PRINTF(4, 5);
static void fail_layer(ov *r, const ov_layer *l, ts_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, l->at, l->line, code, fmt, ap);
    va_end(ap);
}

static const char *attr(const XML_Char **atts, const char *key)
{
    for (size_t i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], key) == 0)
            return atts[i + 1];
    return NULL;
}

static const char *layer_who(const ov_layer *l, char *buf, size_t cap)
{
    char nb[NAME_BUF];
    snprintf(buf, cap, "layer '%s'", ts__printable_str(l->name, nb, sizeof nb));
    return buf;
}

/* A decimal integer s[0..n) without sign, spaces or overflow: 0, else -1. */
static int decimal(const char *s, size_t n, int64_t *out)
{
    int64_t v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || ts__mul_overflow(v, 10, &v) ||
            ts__add_overflow(v, s[i] - '0', &v))
            return -1;
    }
    *out = v;
    return 0;
}

/* One dim of a partial shape, s[0..n) trimmed: a number, "?" or -1 (any),
 * or a range "a..b" (either end may be left out): its JSON (a number or a
 * string: "?", "a..b"), or NULL when it is none of these. *fixed: the
 * number, or -1. */
static json_t *partial_dim(const char *s, size_t n, int64_t *fixed)
{
    while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    int64_t v = 0, w = 0;
    *fixed = -1;
    if ((n == 1 && s[0] == '?') || (n == 2 && memcmp(s, "-1", 2) == 0))
        return json_string("?");
    if (decimal(s, n, &v) == 0) {
        *fixed = v;
        return json_integer(v);
    }
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < n && !dots; i++)
        if (s[i] == '.' && s[i + 1] == '.')
            dots = s + i;
    if (!dots)
        return NULL;
    size_t a = (size_t)(dots - s), b = n - a - 2;
    if ((a && decimal(s, a, &v) != 0) || (b && decimal(dots + 2, b, &w) != 0) ||
        (a && b && w < v))
        return NULL;
    return json_stringn(s, n);
}

/* A partial shape "1,?,1..10" ("" a scalar, "..." a dynamic rank), as
 * JSON: an array, or the string "...". NULL (and fail) when bad. */
static json_t *partial_shape(ov *r, const char *s, const char *who)
{
    size_t n = strlen(s);
    if (strcmp(s, "...") == 0 || strcmp(s, "[...]") == 0)
        return json_string("...");
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
        s++, n -= 2;
    json_t *a = json_array();
    if (!a) {
        fail(r, TS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    size_t start = 0, count = 0;
    int blank = 1;
    for (size_t i = 0; i < n; i++)
        blank &= s[i] == ' ';
    for (size_t i = 0; !blank && i <= n; i++) {
        if (i < n && s[i] != ',')
            continue;
        int64_t fixed;
        json_t *d = ++count > TS_MAX_NDIM ? NULL : partial_dim(s + start, i - start, &fixed);
        char sb[80];
        if (!d || json_array_append_new(a, d) != 0) {
            json_decref(a);
            if (count > TS_MAX_NDIM)
                fail(r, TS_ERR_NDIM, "%s: shape has more than %d dims", who, TS_MAX_NDIM);
            else
                fail(r, TS_ERR_FORMAT, "%s: shape '%s' has dim %zu '%s', not a number, '?' or "
                     "a range a..b", who, ts__printable(s, n, sb, sizeof sb), count - 1,
                     ts__printable(s + start, i - start, sb + 40, 40));
            return NULL;
        }
        start = i + 1;
    }
    return a;
}

/* A static shape attribute of a Const ("8,8"; "" a scalar). */
static int static_shape(ov *r, ov_layer *l, const char *s)
{
    char who[NAME_BUF + 16];
    layer_who(l, who, sizeof who);
    json_t *a = partial_shape(r, s, who);
    if (!a)
        return -1;
    size_t n = json_is_array(a) ? json_array_size(a) : 0;
    for (size_t i = 0; i < n; i++) {
        json_t *d = json_array_get(a, i);
        if (!json_is_integer(d)) {
            json_decref(a);
            fail(r, TS_ERR_FORMAT, "%s: a constant's shape '%s' has a dim that is not a "
                 "number", who, s);
            return -1;
        }
        l->dims[i] = (int64_t)json_integer_value(d);
    }
    if (!json_is_array(a)) {
        json_decref(a);
        fail(r, TS_ERR_FORMAT, "%s: a constant's shape is '%s', not a list of dims", who, s);
        return -1;
    }
    l->ndim = (int)n;
    l->has_shape = 1;
    json_decref(a);
    return 0;
}

static int64_t attr_int(ov *r, ov_layer *l, const char *s, const char *key, int *ok)
{
    int64_t v = 0;
    *ok = 0;
    if (decimal(s, strlen(s), &v) != 0) {
        char who[NAME_BUF + 16], vb[64];
        fail(r, TS_ERR_FORMAT, "%s: %s '%s' is not a non-negative integer",
             layer_who(l, who, sizeof who), key, ts__printable_str(s, vb, sizeof vb));
        return 0;
    }
    *ok = 1;
    return v;
}

static void on_data(ov *r, ov_layer *l, const XML_Char **atts)
{
    const char *et = attr(atts, "element_type"), *shape = attr(atts, "shape");
    char who[NAME_BUF + 16], vb[64];
    if (et && (l->kind == OV_K_CONST || l->kind == OV_K_PARAM)) {
        if (!(l->type = find_type(et, 0))) {
            fail(r, TS_ERR_DTYPE, "%s: element_type '%s' is not an OpenVINO element type "
                 "tshape knows", layer_who(l, who, sizeof who),
                 ts__printable_str(et, vb, sizeof vb));
            return;
        }
    }
    if (shape && l->kind == OV_K_CONST && static_shape(r, l, shape) != 0)
        return;
    if (shape && l->kind == OV_K_PARAM) {
        json_decref(l->pshape);
        if (!(l->pshape = partial_shape(r, shape, layer_who(l, who, sizeof who))))
            return;
    }
    if (l->kind != OV_K_CONST)
        return;
    const char *off = attr(atts, "offset"), *size = attr(atts, "size");
    int ok;
    if (off) {
        l->offset = attr_int(r, l, off, "offset", &ok);
        l->has_offset = ok;
    }
    if (size && !r->st) {
        l->size = attr_int(r, l, size, "size", &ok);
        l->has_size = ok;
    }
}

static void open_layer(ov *r, const XML_Char **atts)
{
    if (r->nest == OV_MAX_NEST) {
        fail(r, TS_ERR_LIMIT, "layers nested more than %d deep in bodies", OV_MAX_NEST);
        return;
    }
    ov_layer *l = &r->layers[r->nest];
    memset(l, 0, sizeof *l);
    l->at = here(r);
    l->line = (unsigned long)xml.XML_GetCurrentLineNumber(r->p);
    const char *name = attr(atts, "name"), *type = attr(atts, "type");
    if (!name)
        name = attr(atts, "id");
    if (!name || !type) {
        fail(r, TS_ERR_FORMAT, "a <layer> without a %s", type ? "name or id" : "type");
        return;
    }
    if (r->nest > 0)
        l->name = ts__file_printf(r->f, r->err, "%s/%s", r->layers[r->nest - 1].name, name);
    else
        l->name = ts__file_strndup(r->f, name, strlen(name), r->err);
    if (!l->name) {
        stop(r, TS_ERR_NOMEM);
        return;
    }
    l->kind = strcmp(type, "Const") == 0 || strcmp(type, "Constant") == 0 ? OV_K_CONST
              : strcmp(type, "Parameter") == 0                             ? OV_K_PARAM
              : strcmp(type, "Result") == 0                                ? OV_K_RESULT
                                                                           : OV_K_OTHER;
    r->nest++;
    r->nlayers++;
}

/* The weights file, found on the first constant (a model without constants
 * needs none). */
static int locate_bin(ov *r, ov_layer *l)
{
    if (r->bin_located)
        return 0;
    r->bin_located = 1;
    const char *path = r->opts->path, *slash = path ? strrchr(path, '/') : NULL;
    const char *base = path ? (slash ? slash + 1 : path) : "model.xml";
    size_t n = strlen(base);
    if (n >= 4 && strcmp(base + n - 4, ".xml") == 0) /* OpenVINO's rule: the same stem */
        n -= 4;
    r->bin = ts__file_printf(r->f, r->err, "%.*s.bin", (int)n, base);
    if (!r->bin) {
        stop(r, TS_ERR_NOMEM);
        return -1;
    }
    if (!path)
        return 0;
    char who[NAME_BUF + 16];
    char *rs = NULL;
    ts_status st = ts__side_check_name(r->bin, strlen(r->bin), "weights",
                                       layer_who(l, who, sizeof who), 0, r->err);
    if (!st)
        st = ts__side_locate(r->opts, r->bin, "weights", who, (size_t)l->at, &rs,
                             &r->bin_size, NULL, r->err);
    if (!st)
        st = ts__side_add(r->f, rs, r->opts, &r->side, r->err);
    free(rs);
    if (st) {
        stop(r, st);
        return -1;
    }
    return 0;
}

static void close_const(ov *r, ov_layer *l)
{
    char who[NAME_BUF + 16], sb[TS__SHAPE_STR_MAX];
    layer_who(l, who, sizeof who);
    const ov_type *t = l->type ? l->type : l->port_type;
    if (!l->has_shape && l->port_dims && !l->port_dynamic) {
        l->ndim = l->port_ndim;
        memcpy(l->dims, l->port_static, sizeof l->dims);
        l->has_shape = 1;
    }
    if (!t || !l->has_shape || !l->has_offset || !l->has_size) {
        fail_layer(r, l, TS_ERR_FORMAT, "%s (a constant) has no %s", who,
             !t ? "element_type" : !l->has_shape ? "shape" : !l->has_offset ? "offset" : "size");
        return;
    }
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a) {
        stop(r, ts__file_add_failure(r->f));
        return;
    }
    ts_status st;
    a->name = l->name;
    a->format_dtype = t->name;
    if ((st = ts_shape_resize(&a->shape, l->ndim, r->err))) {
        stop(r, st);
        return;
    }
    memcpy(ts_shape_dims_mut(&a->shape), l->dims, (size_t)l->ndim * sizeof *l->dims);
    if (t->dtype != TS_DTYPE_UNKNOWN) {
        ts__array_set_dtype(a, t->dtype);
        a->byteorder = a->itemsize > 1 ? '<' : '|';
    } else {
        a->dtype_name = t->unknown_name;
        a->bits = t->bits;
    }
    if (t->dtype != TS_DTYPE_UNKNOWN || t->bits) {
        st = ts__array_compute_sizes(a, r->err);
    } else {
        st = ts_shape_size(&a->shape, &a->size, r->err);
        a->nbytes = l->size; /* strings: the .bin says their sizes */
    }
    if (st) {
        ts__error_prefix(r->err, "%s", who);
        stop(r, st);
        return;
    }
    if (a->nbytes != l->size) {
        fail_layer(r, l, TS_ERR_FORMAT, "%s: size %lld, but shape %s of %s needs %lld bytes", who,
             (long long)l->size, ts__shape_str(&a->shape, sb, sizeof sb), t->name,
             (long long)a->nbytes);
        return;
    }
    if (locate_bin(r, l) != 0)
        return;
    a->storage_key = r->bin;
    int64_t end;
    if (!r->opts->path) {
        a->note = ts__file_printf(r->f, r->err, "%s offset %lld size %lld (not checked: the "
                                  "model was read from memory)", r->bin, (long long)l->offset,
                                  (long long)l->size);
    } else if (ts__add_overflow(l->offset, l->size, &end) || end > r->bin_size) {
        fail_layer(r, l, TS_ERR_TRUNCATED, "%s: offset %lld + size %lld > size of %s (%lld)", who,
             (long long)l->offset, (long long)l->size, r->bin, (long long)r->bin_size);
        return;
    } else {
        /* an offset in the .bin, checked against its size (from memory,
         * nothing to check it against: -1, the note says it) */
        a->data_offset = l->offset;
        ts__data_src ds;
        memset(&ds, 0, sizeof ds);
        ds.side = r->side;
        if ((st = ts__file_set_data_src(r->f, a, &ds, r->err))) {
            stop(r, st);
            return;
        }
    }
    if (t->dtype == TS_DTYPE_UNKNOWN && !a->note)
        a->note = ts__file_printf(r->f, r->err, "OpenVINO %s: no tshape dtype, values not read",
                                  t->name);
    if (!a->note && (t->dtype == TS_DTYPE_UNKNOWN || !r->opts->path)) {
        stop(r, TS_ERR_NOMEM);
        return;
    }
    r->nconst++;
}

/* A Parameter or Result as an entry of graph.inputs or graph.outputs. */
static void close_io(ov *r, ov_layer *l)
{
    int out = l->kind == OV_K_RESULT;
    const ov_type *t = out ? l->port_type : l->type ? l->type : l->port_type;
    json_t *shape = out ? l->port_dims : l->pshape ? l->pshape : l->port_dims;
    json_t *e = json_pack("{s:s,s:s?,s:O?}", "name", l->name, "dtype",
                          t ? type_dtype_name(t) : NULL, "shape", shape);
    if (!e || json_array_append_new(r->io[out], e) != 0)
        stop(r, TS_ERR_NOMEM);
}

static void close_layer(ov *r)
{
    ov_layer *l = &r->layers[r->nest - 1];
    if (l->kind == OV_K_CONST)
        close_const(r, l);
    else if (l->kind != OV_K_OTHER && r->nest == 1 && r->opts->want_metadata)
        close_io(r, l); /* a body's Parameters and Results are not the model's */
    json_decref(l->pshape);
    json_decref(l->port_dims);
    l->pshape = l->port_dims = NULL;
    r->nest--;
}

static ov_elem classify(ov_elem parent, const char *name)
{
    static const struct {
        ov_elem parent;
        const char *name;
        ov_elem kind;
    } rules[] = {
        {OV_NET, "layers", OV_LAYERS},    {OV_BODY, "layers", OV_LAYERS},
        {OV_LAYERS, "layer", OV_LAYER},   {OV_LAYER, "data", OV_DATA},
        {OV_LAYER, "input", OV_INPUT},    {OV_LAYER, "output", OV_OUTPUT},
        {OV_INPUT, "port", OV_PORT},      {OV_OUTPUT, "port", OV_PORT},
        {OV_PORT, "dim", OV_DIM},         {OV_LAYER, "body", OV_BODY},
        {OV_LAYER, "then_body", OV_BODY}, {OV_LAYER, "else_body", OV_BODY},
    };
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (rules[i].parent == parent && strcmp(rules[i].name, name) == 0)
            return rules[i].kind;
    return OV_OTHER;
}

static void XMLCALL on_start(void *user, const XML_Char *name, const XML_Char **atts)
{
    ov *r = user;
    if (r->st)
        return;
    if (r->depth == OV_MAX_DEPTH) {
        fail(r, TS_ERR_LIMIT, "elements nested more than %d deep", OV_MAX_DEPTH);
        return;
    }
    ov_elem parent = r->depth ? r->stack[r->depth - 1] : OV_OTHER, kind;
    if (r->depth == 0) {
        if (strcmp(name, "net") != 0) {
            char nb[64];
            fail(r, TS_ERR_FORMAT, "the root element is <%s>, not <net> (not an OpenVINO IR "
                 "model)", ts__printable_str(name, nb, sizeof nb));
            return;
        }
        kind = OV_NET;
        const char *nn = attr(atts, "name"), *v = attr(atts, "version");
        if ((nn && !(r->net_name = ts__file_strndup(r->f, nn, strlen(nn), r->err))) ||
            (v && !(r->version = ts__file_strndup(r->f, v, strlen(v), r->err)))) {
            stop(r, TS_ERR_NOMEM);
            return;
        }
    } else {
        kind = classify(parent, name);
    }
    ov_layer *l = r->nest ? &r->layers[r->nest - 1] : NULL;
    switch (kind) {
    case OV_LAYER:
        open_layer(r, atts);
        break;
    case OV_DATA:
        on_data(r, l, atts);
        break;
    case OV_PORT: {
        ov_elem list = parent;
        int wanted = (list == OV_OUTPUT && l->kind != OV_K_RESULT) ||
                     (list == OV_INPUT && l->kind == OV_K_RESULT);
        if (wanted && l->ports++ == 0) {
            const char *prec = attr(atts, "precision");
            l->in_port = 1;
            if (prec && !(l->port_type = find_type(prec, 1)))
                l->port_type = find_type(prec, 0); /* IR v11 ports write element types */
            json_decref(l->port_dims);
            if (!(l->port_dims = json_array())) {
                stop(r, TS_ERR_NOMEM);
                return;
            }
        }
        break;
    }
    case OV_DIM:
        r->text_n = 0;
        r->text_long = 0;
        break;
    case OV_NET: case OV_LAYERS: case OV_INPUT: case OV_OUTPUT: case OV_BODY: case OV_OTHER:
        break;
    }
    r->stack[r->depth++] = kind;
}

static void XMLCALL on_end(void *user, const XML_Char *name)
{
    ov *r = user;
    (void)name;
    if (r->st || r->depth == 0)
        return;
    ov_elem kind = r->stack[--r->depth];
    ov_layer *l = r->nest ? &r->layers[r->nest - 1] : NULL;
    if (kind == OV_LAYER) {
        close_layer(r);
    } else if (kind == OV_PORT && l && l->in_port) {
        l->in_port = 0;
    } else if (kind == OV_DIM && l && l->in_port) {
        char who[NAME_BUF + 16], tb[80];
        int64_t fixed;
        json_t *d = r->text_long ? NULL : partial_dim(r->text, r->text_n, &fixed);
        if (!d) {
            fail(r, TS_ERR_FORMAT, "%s: <dim> '%s%s' is not a number, -1, '?' or a range a..b",
                 layer_who(l, who, sizeof who), ts__printable(r->text, r->text_n, tb, sizeof tb),
                 r->text_long ? "..." : "");
            return;
        }
        if (l->port_ndim == TS_MAX_NDIM) {
            json_decref(d);
            fail(r, TS_ERR_NDIM, "%s: a port has more than %d dims",
                 layer_who(l, who, sizeof who), TS_MAX_NDIM);
            return;
        }
        if (fixed < 0)
            l->port_dynamic = 1;
        l->port_static[l->port_ndim++] = fixed;
        if (json_array_append_new(l->port_dims, d) != 0)
            stop(r, TS_ERR_NOMEM);
    }
}

static void XMLCALL on_text(void *user, const XML_Char *s, int len)
{
    ov *r = user;
    if (r->st || r->depth == 0 || r->stack[r->depth - 1] != OV_DIM || len <= 0)
        return;
    size_t n = (size_t)len;
    if (r->text_n + n > sizeof r->text) {
        r->text_long = 1;
        n = sizeof r->text - r->text_n;
    }
    memcpy(r->text + r->text_n, s, n);
    r->text_n += n;
}

static void XMLCALL on_entity(void *user, const XML_Char *name, int param, const XML_Char *v,
                              int vlen, const XML_Char *base, const XML_Char *sys,
                              const XML_Char *pub, const XML_Char *notation)
{
    ov *r = user;
    char nb[64];
    (void)param, (void)v, (void)vlen, (void)base, (void)sys, (void)pub, (void)notation;
    fail(r, TS_ERR_FORMAT, "the XML declares entity '%s' (OpenVINO IR declares none; refused, "
         "as entity expansion is how XML bombs work)", ts__printable_str(name, nb, sizeof nb));
}

static ts_status add_meta_json(ov *r, const char *key, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!text)
        return ts__error(r->err, TS_ERR_NOMEM, "out of memory for the metadata");
    ts_status st = ts__file_add_metadata(r->f, key, strlen(key), text, strlen(text), r->err);
    free(text);
    return st;
}

static ts_status metadata(ov *r)
{
    ts_status st = TS_OK;
    json_t *v;
    if (r->net_name) {
        v = json_string(r->net_name);
        st = add_meta_json(r, "name", v);
        json_decref(v);
    }
    if (!st && r->version) {
        v = json_string(r->version);
        st = add_meta_json(r, "ir_version", v);
        json_decref(v);
    }
    if (!st)
        st = add_meta_json(r, "graph.inputs", r->io[0]);
    if (!st)
        st = add_meta_json(r, "graph.outputs", r->io[1]);
    if (!st) {
        v = json_integer((json_int_t)r->nlayers);
        st = add_meta_json(r, "layers", v);
        json_decref(v);
    }
    if (!st && r->bin) {
        v = json_string(r->bin);
        st = add_meta_json(r, "weights", v);
        json_decref(v);
    }
    return st;
}

static ts_status parse(ov *r, const char *s, size_t len)
{
    ts_status st = load_xml(r->err);
    if (st)
        return st;
    if (!(r->p = xml.XML_ParserCreate(NULL)))
        return ts__error(r->err, TS_ERR_NOMEM, "out of memory for the XML parser");
    xml.XML_SetUserData(r->p, r);
    xml.XML_SetElementHandler(r->p, on_start, on_end);
    xml.XML_SetCharacterDataHandler(r->p, on_text);
    xml.XML_SetEntityDeclHandler(r->p, on_entity);
    size_t done = 0;
    do {
        size_t k = len - done < (size_t)INT_MAX / 2 ? len - done : (size_t)INT_MAX / 2;
        int last = done + k == len;
        if (xml.XML_Parse(r->p, s + done, (int)k, last) != XML_STATUS_OK && !r->st) {
            enum XML_Error code = xml.XML_GetErrorCode(r->p);
            int64_t at = here(r);
            ts__fail(r->err, TS_ERR_FORMAT, 0, at, "not well-formed XML at byte %lld (line %lu): "
                     "%s", (long long)at, (unsigned long)xml.XML_GetCurrentLineNumber(r->p),
                     xml.XML_ErrorString(code));
            r->st = TS_ERR_FORMAT;
        }
        done += k;
    } while (!r->st && done < len);
    xml.XML_ParserFree(r->p);
    r->p = NULL;
    while (r->nest > 0) { /* layers left open by an error */
        ov_layer *l = &r->layers[--r->nest];
        json_decref(l->pshape);
        json_decref(l->port_dims);
    }
    return r->st;
}

static ts_status read_openvino(ts_file *f, const unsigned char *data, size_t len,
                               const ts_open_options *opts, ts_error *err)
{
    ov r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.opts = opts;
    r.err = err;
    ts_status st = ts__file_need(f, 0, len, err); /* XML: every byte is header */
    if (st)
        return st;
    /* expat reads a copy: a fault on the map happens here, not inside it */
    char *copy = ts__scratch_alloc(f, len ? len : 1, err);
    if (!copy)
        return TS_ERR_NOMEM;
    memcpy(copy, data, len);
    r.io[0] = json_array();
    r.io[1] = json_array();
    if (!r.io[0] || !r.io[1])
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (!st)
        st = parse(&r, copy, len);
    ts__scratch_free(f, copy);
    if (!st && !r.version)
        st = ts__error(err, TS_ERR_FORMAT, "<net> has no version attribute (IR v10 and v11 "
                                           "have one)");
    if (!st && strcmp(r.version, "10") != 0 && strcmp(r.version, "11") != 0) {
        char vb[32];
        st = ts__error(err, TS_ERR_UNSUPPORTED, "IR version %s: tshape reads IR v10 and v11 "
                       "(OpenVINO 2020.1 and later; older IRs keep weights in <blobs>)",
                       ts__printable_str(r.version, vb, sizeof vb));
    }
    if (!st) {
        ts__file_set_version(f, r.version);
        if (opts->want_metadata)
            st = metadata(&r);
    }
    json_decref(r.io[0]);
    json_decref(r.io[1]);
    return st;
}

const ts__reader ts__reader_openvino = {
    {TS_FORMAT_OPENVINO, "openvino", ".xml",
     "extension .xml and a <net> root element",
     "OpenVINO IR model.xml with its model.bin (IR v10, v11; Const layers, inputs and "
     "outputs with partial shapes)", "element_type", 1},
    probe_openvino,
    read_openvino,
    1,
};
