/*
 * darknet.c - reader for Darknet .weights files (pjreddie/darknet and
 * AlexeyAB/darknet, YOLO v1..v4), read with the network's .cfg.
 *
 * A .weights file is a header and then float32 values, one layer after
 * another, with no names and no shapes (parser.c load_weights_upto):
 *
 *   i32 major, minor, revision;
 *   seen: u64 when major * 10 + minor >= 2 (and major, minor < 1000, as
 *         pjreddie's reader has it), else u32 (images seen in training);
 *   for each layer of the cfg, in order: its weights.
 *
 * What a layer holds depends on its type and options in the cfg, and on
 * the shape of its input (the output of the layer before it, from the
 * [net] section's width, height and channels on), so the cfg's layers are
 * walked as darknet's parser walks them, computing each one's output
 * shape:
 *
 *   convolutional  biases[n]; with batch_normalize: scales, rolling_mean,
 *                  rolling_variance [n]; weights[n][c/groups][size][size]
 *   deconvolutional the same, weights[n][c][size][size] (pjreddie)
 *   connected      biases[outputs], weights[outputs][inputs] ([inputs]
 *                  [outputs] when major or minor > 1000: stored
 *                  transposed); with batch_normalize: scales,
 *                  rolling_mean, rolling_variance [outputs]
 *   batchnorm      biases, scales, rolling_mean, rolling_variance [c]
 *   shortcut       weights[n + 1] (weights_type=per_feature) or
 *                  [n + 1][c] (per_channel), n the layers of `from`
 *                  (AlexeyAB)
 * and no weights for maxpool, avgpool, local_avgpool, route, upsample,
 * reorg, reorg3d, yolo, Gaussian_yolo, region, detection, dropout,
 * softmax, cost, crop, sam, scale_channels, activation, normalization and
 * empty layers (their output shapes are computed). dontload skips a layer,
 * dontloadscales its batch-normalisation values, numload loads that many
 * filters (pjreddie); a convolutional layer with share_index loads none.
 * Recurrent layers (rnn, lstm, gru, crnn, conv_lstm), local and implicit
 * layers are refused by name.
 *
 * Each array is named "<kind><layer index>.<field>" (conv0.weights,
 * fc12.biases), the index being darknet's layer number. A file may end at
 * a layer boundary before the cfg's last layer (darknet53.conv.74: the
 * first 74 layers of a pre-trained backbone, which darknet loads into a
 * longer network): the last array's note says so. Bytes after the last
 * layer's weights mean the cfg does not describe the file: an error.
 *
 * The cfg: ts_open_options.darknet_cfg, else the file beside the weights
 * with the same stem (yolov3.weights -> yolov3.cfg; for a URL, the URL
 * beside it). Without one, the values after the header are one float32
 * array "weights" whose note says what is missing. The cfg's text is
 * parsed as darknet's read_cfg reads it: whitespace removed from every
 * line, '#' and ';' start comments, "[type]" starts a section, other
 * lines are key=value; the first of two equal keys counts.
 */
#include "model_meta.h"
#include "../remote/remote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The largest cfg read (darknet's own are about 10 KiB). */
#define MAX_CFG ((size_t)1 << 20)
/* Layer dims and counts are C ints in darknet. */
#define MAX_DIM INT32_MAX

const char *ts__darknet_test_cfg;
size_t ts__darknet_test_cfg_len;

/* Layer types, by what their weights and shape need. */
typedef enum dn_type {
    DN_NET, DN_CONV, DN_DECONV, DN_CONNECTED, DN_BATCHNORM, DN_SHORTCUT, DN_MAXPOOL,
    DN_AVGPOOL, DN_LOCAL_AVGPOOL, DN_ROUTE, DN_UPSAMPLE, DN_REORG, DN_SAME, DN_CROP,
    DN_SCALE, DN_DETECTION, DN_REFUSED, DN_UNKNOWN
} dn_type;

static const struct {
    const char *name;
    dn_type type;
} section_types[] = {
    {"net", DN_NET}, {"network", DN_NET},
    {"convolutional", DN_CONV}, {"conv", DN_CONV},
    {"deconvolutional", DN_DECONV}, {"deconv", DN_DECONV},
    {"connected", DN_CONNECTED}, {"conn", DN_CONNECTED},
    {"batchnorm", DN_BATCHNORM}, {"shortcut", DN_SHORTCUT},
    {"maxpool", DN_MAXPOOL}, {"max", DN_MAXPOOL},
    {"avgpool", DN_AVGPOOL}, {"avg", DN_AVGPOOL},
    {"local_avgpool", DN_LOCAL_AVGPOOL}, {"local_avg", DN_LOCAL_AVGPOOL},
    {"route", DN_ROUTE}, {"upsample", DN_UPSAMPLE},
    {"reorg", DN_REORG}, {"reorg3d", DN_REORG},
    {"yolo", DN_SAME}, {"Gaussian_yolo", DN_SAME}, {"region", DN_SAME},
    {"dropout", DN_SAME}, {"softmax", DN_SAME}, {"soft", DN_SAME}, {"cost", DN_SAME},
    {"activation", DN_SAME}, {"normalization", DN_SAME}, {"lrn", DN_SAME},
    {"empty", DN_SAME}, {"silence", DN_SAME}, {"logistic", DN_SAME}, {"l2norm", DN_SAME},
    {"sam", DN_SAME}, {"scale_channels", DN_SCALE}, {"crop", DN_CROP},
    {"detection", DN_DETECTION},
    {"rnn", DN_REFUSED}, {"lstm", DN_REFUSED}, {"gru", DN_REFUSED}, {"crnn", DN_REFUSED},
    {"conv_lstm", DN_REFUSED}, {"local", DN_REFUSED}, {"implicit", DN_REFUSED},
    {"contrastive", DN_REFUSED}, {"history", DN_REFUSED},
};

typedef struct dn_opt {
    const char *key, *value;   /* NUL-terminated, in the cfg's copy */
    size_t line;
} dn_opt;

typedef struct dn_section {
    const char *name;
    dn_type type;
    size_t line, first, nopts;  /* its options: opts[first, first + nopts) */
} dn_section;

/* A layer's output, as darknet's parser carries it to the next layer. */
typedef struct dn_out {
    int64_t h, w, c, outputs;
} dn_out;

typedef struct dn_reader {
    ts_file *f;
    ts_error *err;
    const char *cfg_name;      /* for messages */
    dn_opt *opts;
    size_t nopts;
    dn_section *secs;
    size_t nsecs;
    dn_out *outs;              /* per layer (section 1..) */
    int transpose;
    uint64_t pos, end;         /* the next value's offset, the file size */
    ts_array *last;            /* the array added last */
    size_t layers_read;        /* layers whose weights are in the file */
    int ended;                 /* the file ended at a layer boundary */
} dn_reader;

/* ---- the cfg -------------------------------------------------------------- */

static ts_status cfg_fail(dn_reader *r, size_t line, const char *fmt, ...) TS__PRINTF(3, 4);
static ts_status cfg_fail(dn_reader *r, size_t line, const char *fmt, ...)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char shown[160];
    return ts__fail(r->err, TS_ERR_FORMAT, 0, -1, "cfg %s: line %zu: %s",
                    ts__printable_str(r->cfg_name, shown, sizeof shown), line, msg);
}

/* Splits the cfg text (n bytes, modified in place: a copy the reader owns)
 * into sections and options, as darknet's read_cfg. */
static ts_status parse_cfg(dn_reader *r, char *text, size_t n)
{
    size_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    r->opts = ts__scratch_alloc(r->f, lines * sizeof *r->opts, r->err);
    r->secs = ts__scratch_alloc(r->f, lines * sizeof *r->secs, r->err);
    if (!r->opts || !r->secs)
        return TS_ERR_NOMEM;
    size_t line = 0;
    for (size_t at = 0; at < n;) {
        char *s = text + at;
        size_t len = 0;
        while (at + len < n && s[len] != '\n')
            len++;
        at += len + (at + len < n);
        line++;
        /* strip(): every whitespace character goes */
        size_t k = 0;
        for (size_t i = 0; i < len; i++) {
            if (s[i] == '\0')
                return cfg_fail(r, line, "a NUL byte: not a text file");
            if (!ts__is_ws(s[i], TS__WS_C))
                s[k++] = s[i];
        }
        s[k] = '\0';
        if (k == 0 || s[0] == '#' || s[0] == ';')
            continue;
        if (s[0] == '[') {
            if (s[k - 1] != ']' || k < 3)
                return cfg_fail(r, line, "'%s' is not a [section] line", s);
            s[k - 1] = '\0';
            dn_section *sec = &r->secs[r->nsecs++];
            sec->name = s + 1;
            sec->line = line;
            sec->first = r->nopts;
            sec->nopts = 0;
            sec->type = DN_UNKNOWN;
            for (size_t i = 0; i < sizeof section_types / sizeof *section_types; i++)
                if (strcmp(s + 1, section_types[i].name) == 0)
                    sec->type = section_types[i].type;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq)
            return cfg_fail(r, line, "'%s' is neither a [section] nor key=value", s);
        if (r->nsecs == 0)
            return cfg_fail(r, line, "an option before the first [section]");
        *eq = '\0';
        r->opts[r->nopts++] = (dn_opt){s, eq + 1, line};
        r->secs[r->nsecs - 1].nopts++;
    }
    if (r->nsecs == 0 || r->secs[0].type != DN_NET)
        return cfg_fail(r, r->nsecs ? r->secs[0].line : line,
                        "the first section must be [net] or [network]");
    return TS_OK;
}

/* The first value of key in section s, or NULL. */
static const dn_opt *find(const dn_reader *r, const dn_section *s, const char *key)
{
    for (size_t i = 0; i < s->nopts; i++)
        if (strcmp(r->opts[s->first + i].key, key) == 0)
            return &r->opts[s->first + i];
    return NULL;
}

/* An integer option (darknet's option_find_int), def when absent. */
static ts_status opt_int(dn_reader *r, const dn_section *s, const char *key, int64_t def,
                         int64_t *out)
{
    const dn_opt *o = find(r, s, key);
    if (!o) {
        *out = def;
        return TS_OK;
    }
    ts__int v;
    size_t len = strlen(o->value);
    if (ts__scan_int(o->value, len, 0, TS__INT_SIGN, &v) != 0 || v.end != len ||
        v.value < -(int64_t)MAX_DIM || v.value > MAX_DIM)
        return cfg_fail(r, o->line, "[%s] %s=%s is not an integer", s->name, key, o->value);
    *out = v.value;
    return TS_OK;
}

/* A list of layer indices ("-1,61"): relative when negative, each before
 * layer `index`. */
static ts_status opt_layers(dn_reader *r, const dn_section *s, size_t index, const char *key,
                            int64_t *out, size_t *n, size_t cap)
{
    const dn_opt *o = find(r, s, key);
    if (!o)
        return cfg_fail(r, s->line, "[%s] has no %s=", s->name, key);
    const char *p = o->value;
    *n = 0;
    for (;;) {
        ts__int v;
        size_t len = strcspn(p, ",");
        if (*n == cap)
            return cfg_fail(r, o->line, "[%s] %s= names more than %zu layers", s->name, key,
                            cap);
        if (ts__scan_int(p, len, 0, TS__INT_SIGN, &v) != 0 || v.end != len)
            return cfg_fail(r, o->line, "[%s] %s=%s is not a list of layer numbers", s->name,
                            key, o->value);
        int64_t l = v.value < 0 ? (int64_t)index + v.value : v.value;
        if (l < 0 || l >= (int64_t)index)
            return cfg_fail(r, o->line, "[%s] %s=%s: layer %lld is not a layer before this "
                            "one (%zu)", s->name, key, o->value, (long long)l, index);
        out[(*n)++] = l;
        if (!p[len])
            return TS_OK;
        p += len + 1;
    }
}

/* ---- arrays ---------------------------------------------------------------- */

/* The next `count` float32 values of layer `index` as an array; sets
 * r->ended when the file ends before them, at the layer's first array. */
static ts_status take(dn_reader *r, size_t index, const char *kind, const char *field,
                      const int64_t *dims, int ndim, int first, const char *note)
{
    int64_t count;
    ts_status st = ts__dims_size(dims, ndim, &count, r->err);
    if (st)
        return st;
    if (r->ended)
        return TS_OK;
    if (first && r->pos == r->end) {
        r->ended = 1;
        return TS_OK;
    }
    if ((uint64_t)count > (r->end - r->pos) / 4)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)r->end,
                        "layer %zu (%s): %s needs %lld float32 values at byte %llu, but the "
                        "file ends %llu bytes later", index, kind, field, (long long)count,
                        (unsigned long long)r->pos, (unsigned long long)(r->end - r->pos));
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return TS_ERR_NOMEM;
    a->name = ts__file_printf(r->f, r->err, "%s%zu.%s", kind, index, field);
    if (!a->name || (st = ts_shape_assign(&a->shape, dims, ndim, r->err)))
        return a->name ? st : TS_ERR_NOMEM;
    ts__array_set_dtype(a, TS_DTYPE_FLOAT32);
    a->byteorder = '<';
    a->format_dtype = "float";
    a->note = note;
    a->data_offset = (int64_t)r->pos;
    r->pos += (uint64_t)count * 4;
    r->last = a;
    return ts__array_compute_sizes(a, r->err);
}

static ts_status take_bn(dn_reader *r, size_t index, const char *kind, int64_t n,
                         int with_biases, const char *note)
{
    static const char *const fields[] = {"biases", "scales", "rolling_mean",
                                         "rolling_variance"};
    ts_status st = TS_OK;
    for (int i = with_biases ? 0 : 1; !st && i < 4; i++)
        st = take(r, index, kind, fields[i], &n, 1, with_biases && i == 0, note);
    return st;
}

/* ---- layers ------------------------------------------------------------------ */

static ts_status positive(dn_reader *r, const dn_section *s, const char *what, int64_t v)
{
    return v > 0 && v <= MAX_DIM ? TS_OK
                                 : cfg_fail(r, s->line, "[%s] %s %lld: not a positive size",
                                            s->name, what, (long long)v);
}

/* out = h * w * c, checked. */
static ts_status set_out(dn_reader *r, const dn_section *s, dn_out *o, int64_t h, int64_t w,
                         int64_t c)
{
    ts_status st;
    if ((st = positive(r, s, "output height", h)) || (st = positive(r, s, "output width", w)) ||
        (st = positive(r, s, "output channels", c)))
        return st;
    int64_t hw;
    if (ts__mul_overflow(h, w, &hw) || ts__mul_overflow(hw, c, &o->outputs) ||
        o->outputs > MAX_DIM)
        return cfg_fail(r, s->line, "[%s] output %lldx%lldx%lld is too large", s->name,
                        (long long)h, (long long)w, (long long)c);
    o->h = h;
    o->w = w;
    o->c = c;
    return TS_OK;
}

static ts_status conv_layer(dn_reader *r, const dn_section *s, size_t index, const dn_out *in,
                            dn_out *out, int deconv)
{
    int64_t n, groups, size, stride, sx, sy, pad, padding, bn, cbn, aa, share, dontscale, num;
    ts_status st;
    if ((st = opt_int(r, s, "filters", 1, &n)) || (st = opt_int(r, s, "groups", 1, &groups)) ||
        (st = opt_int(r, s, "size", 1, &size)) || (st = opt_int(r, s, "stride", 1, &stride)) ||
        (st = opt_int(r, s, "stride_x", -1, &sx)) || (st = opt_int(r, s, "stride_y", -1, &sy)) ||
        (st = opt_int(r, s, "pad", 0, &pad)) || (st = opt_int(r, s, "padding", 0, &padding)) ||
        (st = opt_int(r, s, "batch_normalize", 0, &bn)) || (st = opt_int(r, s, "cbn", 0, &cbn)) ||
        (st = opt_int(r, s, "antialiasing", 0, &aa)) ||
        (st = opt_int(r, s, "share_index", -1000000000, &share)) ||
        (st = opt_int(r, s, "dontloadscales", 0, &dontscale)) ||
        (st = opt_int(r, s, "numload", 0, &num)))
        return st;
    if (groups < 1)
        groups = 1;
    if (sx < 1)
        sx = stride;
    if (sy < 1)
        sy = stride;
    if (pad)
        padding = size / 2;
    if ((st = positive(r, s, "filters", n)) || (st = positive(r, s, "size", size)) ||
        (st = positive(r, s, "stride", sx)) || (st = positive(r, s, "stride", sy)))
        return st;
    if (in->c % groups != 0 || groups > in->c)
        return cfg_fail(r, s->line, "[%s] groups=%lld does not divide its %lld input channels",
                        s->name, (long long)groups, (long long)in->c);
    if (padding < 0 || padding > MAX_DIM / 4)
        return cfg_fail(r, s->line, "[%s] padding %lld out of range", s->name,
                        (long long)padding);
    int64_t oh, ow;
    if (deconv) {
        oh = (in->h - 1) * sy + size - 2 * padding;
        ow = (in->w - 1) * sx + size - 2 * padding;
    } else {
        int64_t s1 = aa ? 1 : sy, s2 = aa ? 1 : sx;
        oh = (in->h + 2 * padding - size) / s1 + 1;
        ow = (in->w + 2 * padding - size) / s2 + 1;
        if (aa) { /* the blur after it takes the stride (make_convolutional_layer) */
            int64_t bs = aa == 2 ? 2 : 3, bp = aa == 2 ? 0 : 1;
            oh = (oh + 2 * bp - bs) / sy + 1;
            ow = (ow + 2 * bp - bs) / sx + 1;
        }
    }
    if ((st = set_out(r, s, out, oh, ow, n)))
        return st;
    if (share != -1000000000)
        return TS_OK; /* the weights are another layer's */
    if (num > 0 && num < n)
        n = num;
    const char *kind = deconv ? "deconv" : "conv";
    int64_t w[4] = {n, deconv ? in->c : in->c / groups, size, size};
    if ((st = take(r, index, kind, "biases", &n, 1, 1, NULL)))
        return st;
    if ((bn || cbn) && !dontscale && (st = take_bn(r, index, kind, n, 0, NULL)))
        return st;
    return take(r, index, kind, "weights", w, 4, 0, NULL);
}

static ts_status connected_layer(dn_reader *r, const dn_section *s, size_t index,
                                 const dn_out *in, dn_out *out)
{
    int64_t outputs, bn, dontscale;
    ts_status st;
    if ((st = opt_int(r, s, "output", 1, &outputs)) ||
        (st = opt_int(r, s, "batch_normalize", 0, &bn)) ||
        (st = opt_int(r, s, "dontloadscales", 0, &dontscale)) ||
        (st = set_out(r, s, out, 1, 1, outputs)))
        return st;
    int64_t w[2] = {r->transpose ? in->outputs : outputs, r->transpose ? outputs : in->outputs};
    if ((st = take(r, index, "fc", "biases", &outputs, 1, 1, NULL)) ||
        (st = take(r, index, "fc", "weights", w, 2, 0,
                   r->transpose ? "stored transposed (inputs, outputs): the file's major or "
                                  "minor version is above 1000" : NULL)))
        return st;
    return bn && !dontscale ? take_bn(r, index, "fc", outputs, 0, NULL) : TS_OK;
}

static ts_status shortcut_layer(dn_reader *r, const dn_section *s, size_t index,
                                const dn_out *in, dn_out *out)
{
    int64_t from[64];
    size_t n;
    ts_status st = opt_layers(r, s, index, "from", from, &n, 64);
    if (st || (st = set_out(r, s, out, in->h, in->w, in->c)))
        return st;
    const dn_opt *wt = find(r, s, "weights_type");
    if (!wt || strcmp(wt->value, "none") == 0)
        return TS_OK;
    int64_t dims[2] = {(int64_t)n + 1, in->c};
    if (strcmp(wt->value, "per_feature") == 0 || strcmp(wt->value, "per_layer") == 0)
        return take(r, index, "shortcut", "weights", dims, 1, 1, NULL);
    if (strcmp(wt->value, "per_channel") == 0)
        return take(r, index, "shortcut", "weights", dims, 2, 1, NULL);
    return cfg_fail(r, wt->line, "[shortcut] weights_type=%s is not none, per_feature or "
                    "per_channel", wt->value);
}

static ts_status pool_layer(dn_reader *r, const dn_section *s, const dn_out *in, dn_out *out)
{
    int64_t stride, sx, sy, size, padding, depth, outc, aa;
    ts_status st;
    if ((st = opt_int(r, s, "stride", 1, &stride)) ||
        (st = opt_int(r, s, "stride_x", stride, &sx)) ||
        (st = opt_int(r, s, "stride_y", stride, &sy)) ||
        (st = opt_int(r, s, "size", stride, &size)) ||
        (st = opt_int(r, s, "padding", size - 1, &padding)) ||
        (st = opt_int(r, s, "maxpool_depth", 0, &depth)) ||
        (st = opt_int(r, s, "out_channels", 1, &outc)) ||
        (st = opt_int(r, s, "antialiasing", 0, &aa)))
        return st;
    if ((st = positive(r, s, "stride", sx)) || (st = positive(r, s, "stride", sy)))
        return st;
    if (aa)
        return cfg_fail(r, s->line, "[%s] antialiasing is not read by tshape", s->name);
    if (depth)
        return set_out(r, s, out, in->h, in->w, outc);
    return set_out(r, s, out, (in->h + padding - size) / sy + 1,
                   (in->w + padding - size) / sx + 1, in->c);
}

static ts_status route_layer(dn_reader *r, const dn_section *s, size_t index, dn_out *out)
{
    int64_t from[64], groups;
    size_t n;
    ts_status st = opt_layers(r, s, index, "layers", from, &n, 64);
    if (st || (st = opt_int(r, s, "groups", 1, &groups)) || (st = positive(r, s, "groups", groups)))
        return st;
    const dn_out *first = &r->outs[from[0]];
    int64_t c = first->c;
    for (size_t i = 1; i < n; i++) {
        const dn_out *o = &r->outs[from[i]];
        if (o->h != first->h || o->w != first->w)
            return cfg_fail(r, s->line, "[route] layer %lld is %lldx%lld, layer %lld %lldx%lld: "
                            "darknet joins only layers of one width and height",
                            (long long)from[0], (long long)first->w, (long long)first->h,
                            (long long)from[i], (long long)o->w, (long long)o->h);
        c += o->c;
    }
    return set_out(r, s, out, first->h, first->w, c / groups);
}

/* One layer: its output shape, and its arrays. */
static ts_status read_layer(dn_reader *r, size_t index, const dn_out *in, dn_out *out)
{
    const dn_section *s = &r->secs[index + 1];
    int64_t dontload, v, v2;
    ts_status st = opt_int(r, s, "dontload", 0, &dontload);
    if (st)
        return st;
    uint64_t pos = r->pos;
    int ended = r->ended;
    if (dontload)
        r->ended = 1; /* its shape only */
    switch (s->type) {
    case DN_CONV:
    case DN_DECONV:
        st = conv_layer(r, s, index, in, out, s->type == DN_DECONV);
        break;
    case DN_CONNECTED:
        st = connected_layer(r, s, index, in, out);
        break;
    case DN_BATCHNORM:
        st = set_out(r, s, out, in->h, in->w, in->c);
        if (!st)
            st = take_bn(r, index, "bn", in->c, 1, NULL);
        break;
    case DN_SHORTCUT:
        st = shortcut_layer(r, s, index, in, out);
        break;
    case DN_MAXPOOL:
    case DN_LOCAL_AVGPOOL:
        st = pool_layer(r, s, in, out);
        break;
    case DN_AVGPOOL:
        st = set_out(r, s, out, 1, 1, in->c);
        break;
    case DN_ROUTE:
        st = route_layer(r, s, index, out);
        break;
    case DN_UPSAMPLE:
        if (!(st = opt_int(r, s, "stride", 2, &v))) {
            if (v == 0)
                st = cfg_fail(r, s->line, "[upsample] stride=0");
            else if (v > 0)
                st = set_out(r, s, out, in->h * v, in->w * v, in->c);
            else
                st = set_out(r, s, out, in->h / -v, in->w / -v, in->c);
        }
        break;
    case DN_REORG:
        if (!(st = opt_int(r, s, "stride", 1, &v)) && !(st = opt_int(r, s, "reverse", 0, &v2)) &&
            !(st = positive(r, s, "stride", v))) {
            if (v2)
                st = set_out(r, s, out, in->h * v, in->w * v, in->c / (v * v));
            else
                st = set_out(r, s, out, in->h / v, in->w / v, in->c * v * v);
        }
        break;
    case DN_CROP:
        if (!(st = opt_int(r, s, "crop_height", 1, &v)) &&
            !(st = opt_int(r, s, "crop_width", 1, &v2)))
            st = set_out(r, s, out, v, v2, in->c);
        break;
    case DN_SCALE: {
        int64_t from;
        size_t n;
        if (!(st = opt_layers(r, s, index, "from", &from, &n, 1)))
            st = set_out(r, s, out, r->outs[from].h, r->outs[from].w, r->outs[from].c);
        break;
    }
    case DN_DETECTION:
        /* the last layer of YOLO v1: a vector */
        st = set_out(r, s, out, 1, 1, in->outputs);
        break;
    case DN_SAME:
        *out = *in;
        break;
    case DN_NET:
        st = cfg_fail(r, s->line, "a second [%s] section", s->name);
        break;
    case DN_REFUSED:
        st = ts__fail(r->err, TS_ERR_UNSUPPORTED, 0, (int64_t)r->pos,
                      "cfg %s: line %zu: layer %zu is a [%s] layer, whose weights tshape does "
                      "not read", r->cfg_name, s->line, index, s->name);
        break;
    case DN_UNKNOWN:
        st = cfg_fail(r, s->line, "layer %zu: [%s] is not a darknet layer type", index,
                      s->name);
        break;
    }
    if (dontload) {
        r->pos = pos;
        r->ended = ended;
    }
    return st;
}

/* ---- the reader ---------------------------------------------------------------- */

static int probe_darknet(const unsigned char *d, size_t len, ts__source *src)
{
    (void)src;
    if (len < 16)
        return 0;
    /* small version numbers: 0.1.0, 0.2.0 (pjreddie), 0.2.5 (AlexeyAB) */
    uint32_t major = ts__le32(d), minor = ts__le32(d + 4), revision = ts__le32(d + 8);
    return major < 10 && minor < 100 && revision < 1000;
}

/* The cfg's text, malloc'ed (*text NULL when there is none): the one
 * named by opts, or the one beside the weights with the same stem. */
static ts_status find_cfg(dn_reader *r, const ts_open_options *opts, char **text, size_t *len,
                          const char **tried)
{
    *text = NULL;
    *tried = NULL;
    if (!opts->path && ts__darknet_test_cfg) {
        r->cfg_name = "(test)";
        if (!(*text = malloc(ts__darknet_test_cfg_len + 1)))
            return ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        memcpy(*text, ts__darknet_test_cfg, ts__darknet_test_cfg_len);
        *len = ts__darknet_test_cfg_len;
        return TS_OK;
    }
    const char *cfg = opts->darknet_cfg;
    if (!cfg && opts->path) {
        const char *p = opts->path, *slash = strrchr(p, '/'), *dot = strrchr(p, '.');
        size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - p) : strlen(p);
        if (!(cfg = ts__file_printf(r->f, r->err, "%.*s.cfg", (int)stem, p)))
            return TS_ERR_NOMEM;
        *tried = cfg;
    }
    if (!cfg)
        return TS_OK;
    r->cfg_name = cfg;
    int missing = 0;
    ts_status st;
    if (ts__is_url(cfg)) {
        unsigned char *buf = NULL;
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.log = opts->log;
        o.log_user = opts->log_user;
        st = ts__remote_read_all(cfg, &o, MAX_CFG, &buf, len, &missing, r->err);
        *text = (char *)buf;
    } else {
        st = ts__read_small(cfg, MAX_CFG, text, len, &missing, r->err);
    }
    if (st && missing && !opts->darknet_cfg) {
        free(*text);
        *text = NULL;
        return TS_OK; /* none beside the weights */
    }
    if (st) {
        char shown[160];
        ts__error_prefix(r->err, "cfg %s", ts__printable_str(cfg, shown, sizeof shown));
    }
    return st;
}

static ts_status read_darknet(ts_file *f, const unsigned char *data, size_t len,
                              const ts_open_options *opts, ts_error *err)
{
    dn_reader r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.err = err;
    r.end = len;
    /* the version (of what there is: reading it also finds a file that
     * shrank since it was opened) says how long the header is */
    unsigned char head[12] = {0};
    memcpy(head, data, len < sizeof head ? len : sizeof head);
    int32_t major = (int32_t)ts__le32(head), minor = (int32_t)ts__le32(head + 4);
    int32_t revision = (int32_t)ts__le32(head + 8);
    int wide = (int64_t)major * 10 + minor >= 2 && major < 1000 && minor < 1000;
    if (len < (wide ? 20u : 16u))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                        "file is %zu bytes long, too short for the Darknet header (%d bytes "
                        "at version %d.%d.%d: major, minor, revision, a %d-bit 'seen' count)",
                        len, wide ? 20 : 16, (int)major, (int)minor, (int)revision,
                        wide ? 64 : 32);
    uint64_t seen = wide ? ts__le64(data + 12) : ts__le32(data + 12);
    r.pos = wide ? 20 : 16;
    r.transpose = major > 1000 || minor > 1000;
    const char *version = ts__file_printf(f, err, "%d.%d.%d", (int)major, (int)minor,
                                          (int)revision);
    if (!version)
        return TS_ERR_NOMEM;
    ts__file_set_version(f, version);
    char *text = NULL;
    size_t tlen = 0;
    const char *tried;
    ts_status st = find_cfg(&r, opts, &text, &tlen, &tried);
    if (st)
        return st;
    if (opts->want_metadata) {
        char v[32];
        int k = snprintf(v, sizeof v, "%llu", (unsigned long long)seen);
        if ((st = ts__file_add_metadata(f, "seen", 4, v, (size_t)k, err)))
            goto out;
    }
    if (!text) {
        /* the values without their layers */
        if ((len - r.pos) % 4 != 0) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)len,
                          "%llu bytes after the header are not whole float32 values",
                          (unsigned long long)(len - r.pos));
            goto out;
        }
        int64_t count = (int64_t)((len - r.pos) / 4);
        ts_array *a = ts__file_add_array(f, err);
        if (!a) {
            st = TS_ERR_NOMEM;
            goto out;
        }
        a->name = "weights";
        if ((st = ts_shape_assign(&a->shape, &count, 1, err)))
            goto out;
        ts__array_set_dtype(a, TS_DTYPE_FLOAT32);
        a->byteorder = '<';
        a->format_dtype = "float";
        a->data_offset = (int64_t)r.pos;
        a->note = tried ? ts__file_printf(f, err, "every layer's values one after another: "
                                          "no cfg beside the file (%s) to say which layers they "
                                          "belong to; name it with --darknet-cfg", tried)
                        : "every layer's values one after another: no cfg to say which layers "
                          "they belong to";
        st = a->note ? ts__array_compute_sizes(a, err) : TS_ERR_NOMEM;
        goto out;
    }
    if ((st = parse_cfg(&r, text, tlen)))
        goto out;
    if (!(r.outs = ts__scratch_alloc(f, r.nsecs * sizeof *r.outs, err))) {
        st = TS_ERR_NOMEM;
        goto out;
    }
    const dn_section *net = &r.secs[0];
    int64_t h, w, c, inputs;
    if ((st = opt_int(&r, net, "height", 0, &h)) || (st = opt_int(&r, net, "width", 0, &w)) ||
        (st = opt_int(&r, net, "channels", 0, &c)) ||
        (st = opt_int(&r, net, "inputs", 0, &inputs)))
        goto out;
    dn_out in;
    if (h > 0 && w > 0 && c > 0)
        st = set_out(&r, net, &in, h, w, c);
    else if (inputs > 0) /* a vector input */
        st = set_out(&r, net, &in, 1, 1, inputs);
    else
        st = cfg_fail(&r, net->line, "[%s] gives no input shape (height, width and channels, "
                      "or inputs)", net->name);
    if (st)
        goto out;
    size_t nlayers = r.nsecs - 1;
    for (size_t i = 0; i < nlayers; i++) {
        if ((st = read_layer(&r, i, i ? &r.outs[i - 1] : &in, &r.outs[i])))
            goto out;
        if (!r.ended)
            r.layers_read = i + 1;
    }
    if (r.pos < r.end) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)r.pos,
                      "%llu bytes after the weights of the cfg's %zu layers (they end at byte "
                      "%llu): the cfg %s does not describe this file",
                      (unsigned long long)(r.end - r.pos), nlayers, (unsigned long long)r.pos,
                      r.cfg_name);
        goto out;
    }
    if (r.ended && r.last) {
        ts_array *a = r.last;
        a->note = ts__file_printf(f, err, "the file ends here, after layer %zu of the %zu of "
                                  "cfg %s: darknet loads the weights of the layers before and "
                                  "leaves the rest", r.layers_read - 1, nlayers, r.cfg_name);
        if (!a->note)
            st = TS_ERR_NOMEM;
    }
    if (!st && opts->want_metadata) {
        char v[32];
        int k = snprintf(v, sizeof v, "%zu", nlayers);
        st = ts__file_add_metadata(f, "layers", 6, v, (size_t)k, err);
    }
out:
    free(text);
    return st;
}

const ts__reader ts__reader_darknet = {
    {TS_FORMAT_DARKNET, "darknet", ".weights",
     "extension .weights and a small version header (its .cfg gives the layers)",
     "Darknet .weights (YOLO), with the network's .cfg", "type", 0},
    probe_darknet,
    read_darknet,
    0,
};
