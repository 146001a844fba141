/*
 * cmd_pattern.c - the pattern and structured-shape commands: the command
 * table, shared option parsing, and iter, slice, chip (TensorWrapper),
 * extend, shrink, resize (Caffe2). einsum/compose, the einops commands and
 * jagged live in cmd_pattern_*.c.
 */
#include "pattern.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ----------------------------------------------------- */

enum { O_ORIGIN = 256, O_OFFSETS, O_OP, O_LAYERS, O_SLICE, O_PRINT };

int pat_options(cli_ctx *ctx, int argc, char **argv, unsigned allowed, const char *extra,
                pat_opts *o, int *status)
{
    static const struct option long_opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"origin", required_argument, NULL, O_ORIGIN},
        {"offsets", no_argument, NULL, O_OFFSETS},
        {"op", required_argument, NULL, O_OP},
        {"layers", required_argument, NULL, O_LAYERS},
        {"slice", required_argument, NULL, O_SLICE},
        {"print", no_argument, NULL, O_PRINT},
        {NULL, 0, NULL, 0},
    };
    static const struct {
        int code;
        unsigned flag;
        const char *name;
    } gated[] = {
        {O_ORIGIN, PAT_ORIGIN, "--origin"}, {O_OFFSETS, PAT_OFFSETS, "--offsets"},
        {O_OP, PAT_OP, "--op"},             {O_LAYERS, PAT_LAYERS, "--layers"},
        {O_SLICE, PAT_SLICE, "--slice"},    {O_PRINT, PAT_PRINT, "--print"},
    };
    const cli_command *cmd = cli_find_command(argv[0]);
    int c;
    memset(o, 0, sizeof *o);
    while ((c = getopt_long(argc, argv, "hj", long_opts, NULL)) != -1) {
        if (c == 'j') {
            ctx->json = 1;
            continue;
        }
        if (c == 'h') {
            cli_print_command_help(cmd, extra);
            *status = CLI_OK;
            return -1;
        }
        size_t g = 0;
        while (g < sizeof gated / sizeof *gated && gated[g].code != c)
            g++;
        if (g == sizeof gated / sizeof *gated) {
            *status = CLI_ERROR; /* getopt printed the message */
            fprintf(stderr, "Try 'tshape %s --help'.\n", ctx->command);
            return -1;
        }
        if (!(allowed & gated[g].flag)) {
            *status = cli_usage_error(ctx, "option %s does not apply to %s", gated[g].name,
                                      ctx->command);
            return -1;
        }
        switch (c) {
        case O_ORIGIN: o->origin = optarg; break;
        case O_OFFSETS: o->offsets = 1; break;
        case O_OP: o->op = optarg; break;
        case O_LAYERS: o->layers = optarg; break;
        case O_SLICE: o->slice = optarg; break;
        case O_PRINT: o->print = 1; break;
        default: break;
        }
    }
    return optind;
}

int pat_parse_ints(const char *text, const char *what, int64_t *out, int *n)
{
    ts_shape list = TS_SHAPE_INIT;
    int rc = cli_parse_list(text, what, &list);
    if (rc == CLI_OK) {
        *n = ts_shape_ndim(&list);
        memcpy(out, ts_shape_dims(&list), (size_t)*n * sizeof *out);
    }
    ts_shape_free(&list);
    return rc;
}

/* A reusable shape for per-line functions (freed by the commands). */
static ts_shape line_shape = TS_SHAPE_INIT;

static int parse_line(const char *text, size_t len, ts_error *err)
{
    return ts_shape_parse(text, len, 0, &line_shape, NULL, err) == TS_OK ? CLI_OK : CLI_ERROR;
}

static int run_map(cli_ctx *ctx, int n, char **args, cli_input_fn fn, void *user)
{
    int rc = cli_for_each_input(ctx, n, args, fn, user);
    ts_shape_free(&line_shape);
    return rc;
}

/* ---- iter --------------------------------------------------------------- */

typedef struct iter_args {
    int64_t origin[TS_MAX_NDIM];
    int norigin;          /* -1: no --origin */
    int offsets;
} iter_args;

static int do_iter(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const iter_args *a = user;
    ts_index_iter it;
    if (parse_line(text, len, err) ||
        ts_index_iter_init(&it, &line_shape, a->norigin >= 0 ? a->origin : NULL,
                           a->norigin >= 0 ? a->norigin : 0, err))
        return CLI_ERROR;
    const int64_t *v = a->offsets ? it.offset : it.index;
    while (ts_index_iter_next(&it)) {
        out_dims(ctx, v, it.ndim);
        out_char('\n');
    }
    return CLI_OK;
}

static int cmd_iter(cli_ctx *ctx, int argc, char **argv)
{
    static const char extra[] =
        "Prints every index of SHAPE in lexicographic (C) order, one per line:\n"
        "absolute indices origin + offset (TensorWrapper iteration).\n"
        "  --origin TUPLE  origin of the indices (default all zeros)\n"
        "  --offsets       print offsets from the origin instead\n";
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, PAT_ORIGIN | PAT_OFFSETS, extra, &o, &status);
    if (first < 0)
        return status;
    iter_args a;
    a.norigin = -1;
    a.offsets = o.offsets;
    if (o.origin && pat_parse_ints(o.origin, "--origin", a.origin, &a.norigin))
        return CLI_ERROR;
    return run_map(ctx, argc - first, argv + first, do_iter, &a);
}

/* ---- slice and chip ----------------------------------------------------- */

typedef struct slice_args {
    int64_t begin[TS_MAX_NDIM], end[TS_MAX_NDIM];
    int nbegin, nend;     /* nend -1: short form */
    int chip;
} slice_args;

static int do_slice(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const slice_args *a = user;
    ts_shape out = TS_SHAPE_INIT, origin = TS_SHAPE_INIT;
    int rc = CLI_ERROR;
    if (!parse_line(text, len, err)) {
        const int64_t *end = a->nend >= 0 ? a->end : NULL;
        int nend = a->nend >= 0 ? a->nend : 0;
        ts_status st = a->chip ? ts_shape_chip(&line_shape, a->begin, a->nbegin, end, nend,
                                               &out, &origin, err)
                               : ts_shape_slice(&line_shape, a->begin, a->nbegin, end, nend,
                                                &out, &origin, err);
        if (!st) {
            if (ctx->json) {
                out_str("{\"shape\":");
                out_shape(ctx, &out);
                out_str(",\"origin\":");
                out_shape(ctx, &origin);
                out_str("}\n");
            } else {
                out_shape(ctx, &out);
                out_str(" origin ");
                out_shape(ctx, &origin);
                out_char('\n');
            }
            rc = CLI_OK;
        }
    }
    ts_shape_free(&out);
    ts_shape_free(&origin);
    return rc;
}

static int cmd_slice_or_chip(cli_ctx *ctx, int argc, char **argv, int chip)
{
    static const char extra_slice[] =
        "TensorWrapper slice: half-open ranges [BEGIN, END) per axis, same rank,\n"
        "extents END-BEGIN, origin BEGIN. With END omitted, BEGIN pins the first\n"
        "axes to single indices and the others run their whole span. Bounds are\n"
        "checked; empty ranges (BEGIN == END) are allowed. SHAPE '-' reads shapes\n"
        "from stdin.\n";
    static const char extra_chip[] =
        "TensorWrapper chip: like slice, then axes whose range has extent 1 are\n"
        "removed. SHAPE '-' reads shapes from stdin.\n";
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, 0, chip ? extra_chip : extra_slice, &o, &status);
    if (first < 0)
        return status;
    int n = argc - first;
    if (n < 2 || n > 3)
        return cli_usage_error(ctx, "expected SHAPE BEGIN [END], got %d operand%s", n,
                               n == 1 ? "" : "s");
    slice_args a;
    a.chip = chip;
    a.nend = -1;
    if (pat_parse_ints(argv[first + 1], "BEGIN", a.begin, &a.nbegin))
        return CLI_ERROR;
    if (n == 3 && pat_parse_ints(argv[first + 2], "END", a.end, &a.nend))
        return CLI_ERROR;
    return run_map(ctx, 1, argv + first, do_slice, &a);
}

static int cmd_slice(cli_ctx *ctx, int argc, char **argv)
{
    return cmd_slice_or_chip(ctx, argc, argv, 0);
}

static int cmd_chip(cli_ctx *ctx, int argc, char **argv)
{
    return cmd_slice_or_chip(ctx, argc, argv, 1);
}

/* ---- Caffe2: extend, shrink, resize ------------------------------------- */

typedef struct caffe2_args {
    int64_t n;
    ts_shape new_dims;
} caffe2_args;

static int do_extend(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const caffe2_args *a = user;
    if (parse_line(text, len, err) || ts_caffe2_extend(&line_shape, a->n, &line_shape, err))
        return CLI_ERROR;
    out_shape(ctx, &line_shape);
    out_char('\n');
    return CLI_OK;
}

static int do_shrink(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const caffe2_args *a = user;
    if (parse_line(text, len, err) || ts_caffe2_shrink(&line_shape, a->n, &line_shape, err))
        return CLI_ERROR;
    out_shape(ctx, &line_shape);
    out_char('\n');
    return CLI_OK;
}

static int do_resize(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const caffe2_args *a = user;
    int64_t before, after;
    int changed;
    if (parse_line(text, len, err) ||
        ts_caffe2_resize(&line_shape, &a->new_dims, &line_shape, &before, &after, &changed, err))
        return CLI_ERROR;
    if (ctx->json) {
        out_str("{\"shape\":");
        out_shape(ctx, &line_shape);
        out_str(",\"old_size\":");
        out_i64(before);
        out_str(",\"size\":");
        out_i64(after);
        out_str(changed ? ",\"size_changed\":true}\n" : ",\"size_changed\":false}\n");
    } else {
        out_shape(ctx, &line_shape);
        out_str(" size ");
        out_i64(before);
        out_str(" -> ");
        out_i64(after);
        out_str(changed ? " changed\n" : " unchanged\n");
    }
    return CLI_OK;
}

static int cmd_caffe2(cli_ctx *ctx, int argc, char **argv, int which)
{
    static const char *const extras[3] = {
        "Caffe2 Tensor::Extend: grows the outermost dim by N >= 0.\n",
        "Caffe2 Tensor::Shrink: sets the outermost dim to N, 0 <= N <= current.\n",
        ("Caffe2 Tensor::Resize: the new shape NEW, the element counts before and\n"
         "after, and whether the count changed (then Caffe2 frees the buffer).\n"),
    };
    static const cli_input_fn fns[3] = {do_extend, do_shrink, do_resize};
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, 0, extras[which], &o, &status);
    if (first < 0)
        return status;
    if (first >= argc)
        return cli_usage_error(ctx, "missing %s", which == 2 ? "NEW" : "N");
    caffe2_args a;
    ts_shape_init(&a.new_dims);
    if (which == 2) {
        if (cli_parse_shape(argv[first], 0, &a.new_dims))
            return CLI_ERROR;
    } else if (cli_parse_i64(ctx, argv[first], "N", &a.n)) {
        return CLI_ERROR;
    }
    int rc = run_map(ctx, argc - first - 1, argv + first + 1, fns[which], &a);
    ts_shape_free(&a.new_dims);
    return rc;
}

static int cmd_extend(cli_ctx *ctx, int argc, char **argv) { return cmd_caffe2(ctx, argc, argv, 0); }
static int cmd_shrink(cli_ctx *ctx, int argc, char **argv) { return cmd_caffe2(ctx, argc, argv, 1); }
static int cmd_resize(cli_ctx *ctx, int argc, char **argv) { return cmd_caffe2(ctx, argc, argv, 2); }

const cli_command cli_cmds_pattern[] = {
    {"iter", cmd_iter, "iter [OPTIONS] SHAPE...",
     "every index of SHAPE in lexicographic order (TensorWrapper)"},
    {"slice", cmd_slice, "slice SHAPE BEGIN [END]",
     "TensorWrapper slice [BEGIN,END): shape and origin"},
    {"chip", cmd_chip, "chip SHAPE BEGIN [END]",
     "TensorWrapper chip: a slice without its extent-1 axes"},
    {"einsum", pat_cmd_einsum, "einsum SPEC SHAPE...",
     "output shape of numpy.einsum (stdin: SPEC SHAPE... lines)"},
    {"compose", pat_cmd_compose, "compose RESULT LABELS SHAPE...",
     "TensorWrapper labelled shape composition"},
    {"rearrange", pat_cmd_rearrange, "rearrange PATTERN [SHAPE|K=N]...",
     "output shape of einops.rearrange"},
    {"reduce", pat_cmd_reduce, "reduce PATTERN [SHAPE|K=N]...",
     "output shape of einops.reduce"},
    {"repeat", pat_cmd_repeat, "repeat PATTERN [SHAPE|K=N]...",
     "output shape of einops.repeat"},
    {"parse-shape", pat_cmd_parse_shape, "parse-shape PATTERN SHAPE...",
     "einops.parse_shape: name=size of the named axes"},
    {"extend", cmd_extend, "extend N SHAPE...", "Caffe2 Extend: outermost dim + N"},
    {"shrink", cmd_shrink, "shrink N SHAPE...", "Caffe2 Shrink: outermost dim set to N"},
    {"resize", cmd_resize, "resize NEW SHAPE...",
     "Caffe2 Resize: NEW and whether the element count changed"},
    {"jagged", pat_cmd_jagged, "jagged [OPTIONS] TEXT...",
     "rank and size of a jagged/tiled shape (TensorWrapper)"},
    {NULL, NULL, NULL, NULL},
};
