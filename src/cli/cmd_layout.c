/*
 * cmd_layout.c - the layout commands: reshape, broadcast, transpose,
 * squeeze, expand, moveaxis, flatten, strides, contiguous, view, ravel,
 * unravel. Each maps a fixed set of parameters over SHAPE operands, or over
 * stdin lines when no SHAPE is given (cli_for_each_input).
 *
 * Output: a shape or strides tuple "(2,3)" (JSON [2,3]), an integer, or for
 * contiguous "key: value" lines (a JSON object). Exit status 0, 1 for a
 * false predicate (contiguous, view), 2 for bad input.
 */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small parsers over (text, len) ----------------------------------- */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_space(const char *text, size_t len, size_t *pos)
{
    while (*pos < len && is_space(text[*pos]))
        (*pos)++;
}

/* A shape at text[*pos] followed by whitespace or the end; advances *pos.
 * `nth` (1-based) names the shape when a line holds several. */
static int parse_shape_at(const char *text, size_t len, size_t *pos, ts_shape *out,
                          const char *what, ts_error *err)
{
    size_t used = 0, at = *pos;
    if (ts_shape_parse(text + at, len - at, 0, out, &used, err) != TS_OK) {
        char msg[TS_ERROR_MESSAGE_MAX];
        memcpy(msg, err->message, sizeof msg);
        return cli_fail(err, err->code, "%s starting at column %zu: %s", what, at + 1, msg);
    }
    *pos = at + used;
    return CLI_OK;
}

/* ---- options ------------------------------------------------------------ */

enum {
    O_MXNET = 1 << 0,
    O_REVERSE = 1 << 1,
    O_AXES = 1 << 2,
    O_AXIS = 1 << 3,
    O_DTYPE = 1 << 4,
    O_ORDER = 1 << 5,
    O_ELEMENTS = 1 << 6,
    O_STRIDES = 1 << 7,
    O_ROW_STRIDE = 1 << 8,
    O_MODE = 1 << 9
};

typedef struct opts {
    unsigned given;
    const char *axes, *axis, *dtype, *strides, *row_stride, *mode;
    char order;
} opts;

static const struct option long_opts[] = {
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {"mxnet", no_argument, NULL, O_MXNET},
    {"reverse", no_argument, NULL, O_REVERSE},
    {"axes", required_argument, NULL, O_AXES},
    {"axis", required_argument, NULL, O_AXIS},
    {"dtype", required_argument, NULL, O_DTYPE},
    {"order", required_argument, NULL, O_ORDER},
    {"elements", no_argument, NULL, O_ELEMENTS},
    {"strides", required_argument, NULL, O_STRIDES},
    {"row-stride", required_argument, NULL, O_ROW_STRIDE},
    {"mode", required_argument, NULL, O_MODE},
    {NULL, 0, NULL, 0},
};

/*
 * getopt_long over the shared table; options outside `allowed` are usage
 * errors. On --help prints the command's help with `extra` and returns -1
 * with *status 0; on errors returns -1 with *status 2; else the index of
 * the first operand.
 */
static int get_options(cli_ctx *ctx, int argc, char **argv, unsigned allowed, const char *extra,
                       opts *o, int *status)
{
    const cli_command *cmd = cli_find_command(argv[0]);
    memset(o, 0, sizeof *o);
    o->order = 'C';
    int c, idx = 0;
    while ((c = getopt_long(argc, argv, "hj", long_opts, &idx)) != -1) {
        switch (c) {
        case 'j':
            ctx->json = 1;
            continue;
        case 'h':
            cli_print_command_help(cmd, extra);
            *status = CLI_OK;
            return -1;
        case '?':
        case ':':
            *status = CLI_ERROR; /* getopt printed the message */
            fprintf(stderr, "Try 'tshape %s --help'.\n", ctx->command);
            return -1;
        default:
            break;
        }
        if (!((unsigned)c & allowed)) {
            *status = cli_usage_error(ctx, "option --%s does not apply to %s",
                                      long_opts[idx].name, ctx->command);
            return -1;
        }
        o->given |= (unsigned)c;
        switch (c) {
        case O_AXES: o->axes = optarg; break;
        case O_AXIS: o->axis = optarg; break;
        case O_DTYPE: o->dtype = optarg; break;
        case O_STRIDES: o->strides = optarg; break;
        case O_ROW_STRIDE: o->row_stride = optarg; break;
        case O_MODE: o->mode = optarg; break;
        case O_ORDER:
            if ((optarg[0] == 'C' || optarg[0] == 'c' || optarg[0] == 'F' || optarg[0] == 'f') &&
                optarg[1] == '\0') {
                o->order = optarg[0] == 'c' || optarg[0] == 'C' ? 'C' : 'F';
                break;
            }
            *status = cli_usage_error(ctx, "--order must be C or F, not '%s'", optarg);
            return -1;
        default:
            break;
        }
    }
    return optind;
}

/* 1 when the operands select stdin: none, or a single "-". */
static int stdin_mode(int n, char **args)
{
    return n == 0 || (n == 1 && strcmp(args[0], "-") == 0);
}

/* itemsize from --dtype (default float64) or 1 with --elements. */
static int get_itemsize(const cli_ctx *ctx, const opts *o, int64_t *itemsize)
{
    ts_dtype dt = TS_DTYPE_FLOAT64;
    ts_error err;
    if (o->dtype && ts_dtype_from_string(o->dtype, &dt, &err) != TS_OK)
        return cli_usage_error(ctx, "--dtype: %s", err.message);
    if (o->given & O_ELEMENTS) {
        *itemsize = 1;
        return CLI_OK;
    }
    int bits = ts_dtype_bits(dt);
    if (bits == 0 || bits % 8 != 0)
        return cli_usage_error(ctx,
                               "dtype %s has %d-bit elements, so it has no byte strides "
                               "(use --elements for element strides)",
                               ts_dtype_name(dt), bits);
    *itemsize = bits / 8;
    return CLI_OK;
}

/* ---- the per-input jobs -------------------------------------------------- */

typedef struct job {
    opts o;
    unsigned flags;
    int has_list, has_list2;
    ts_shape list, list2;    /* target / axes / strides, second list for moveaxis */
    int64_t a, b;            /* flatten start/end, itemsize */
    ts_index_mode modes[TS_MAX_NDIM];
    size_t nmodes;
    int from_stdin;
} job;

/* Scratch shapes reused across lines; freed at the end of each command. */
static ts_shape sh_in = TS_SHAPE_INIT, sh_out = TS_SHAPE_INIT, sh_aux = TS_SHAPE_INIT;

static void free_scratch(job *j)
{
    ts_shape_free(&sh_in);
    ts_shape_free(&sh_out);
    ts_shape_free(&sh_aux);
    ts_shape_free(&j->list);
    ts_shape_free(&j->list2);
}

static int parse_whole_shape(const char *text, size_t len, ts_shape *s, ts_error *err)
{
    return ts_shape_parse(text, len, 0, s, NULL, err) == TS_OK ? CLI_OK : CLI_ERROR;
}

static int emit_shape(cli_ctx *ctx, const ts_shape *s)
{
    out_shape(ctx, s);
    out_char('\n');
    return CLI_OK;
}

static int do_reshape(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_reshape(&sh_in, &j->list, j->flags, &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

/* Shapes of one broadcast line, kept across lines. */
static ts_shape *bc_shapes;
static const ts_shape **bc_ptrs;
static size_t bc_cap;

static int do_broadcast(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)user;
    size_t n = 0, pos = 0;
    skip_space(text, len, &pos);
    while (pos < len) {
        if (n == bc_cap) {
            size_t cap = bc_cap ? 2 * bc_cap : 8;
            ts_shape *s = realloc(bc_shapes, cap * sizeof *s);
            if (!s)
                return cli_fail(err, TS_ERR_NOMEM, "out of memory for %zu shapes", cap);
            bc_shapes = s;
            const ts_shape **p = realloc(bc_ptrs, cap * sizeof *p);
            if (!p)
                return cli_fail(err, TS_ERR_NOMEM, "out of memory for %zu shapes", cap);
            bc_ptrs = p;
            for (size_t i = bc_cap; i < cap; i++)
                ts_shape_init(&bc_shapes[i]);
            bc_cap = cap;
        }
        char what[32];
        snprintf(what, sizeof what, "shape %zu", n);
        if (parse_shape_at(text, len, &pos, &bc_shapes[n], what, err))
            return CLI_ERROR;
        bc_ptrs[n] = &bc_shapes[n];
        n++;
    }
    if (ts_broadcast(bc_ptrs, n, &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

static void free_broadcast(void)
{
    for (size_t i = 0; i < bc_cap; i++)
        ts_shape_free(&bc_shapes[i]);
    free(bc_shapes);
    free(bc_ptrs);
    bc_shapes = NULL;
    bc_ptrs = NULL;
    bc_cap = 0;
}

static int do_transpose(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_transpose(&sh_in, j->has_list ? ts_shape_dims(&j->list) : NULL,
                     (size_t)ts_shape_ndim(&j->list), &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

static int do_squeeze(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_squeeze(&sh_in, j->has_list ? ts_shape_dims(&j->list) : NULL,
                   (size_t)ts_shape_ndim(&j->list), &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

static int do_expand(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_expand_dims(&sh_in, ts_shape_dims(&j->list), (size_t)ts_shape_ndim(&j->list),
                       &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

static int do_moveaxis(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_moveaxis(&sh_in, ts_shape_dims(&j->list), ts_shape_dims(&j->list2),
                    (size_t)ts_shape_ndim(&j->list), &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

static int do_flatten(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_flatten(&sh_in, j->a, j->b, &sh_out, err))
        return CLI_ERROR;
    return emit_shape(ctx, &sh_out);
}

static int do_strides(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    int64_t st[TS_MAX_NDIM];
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_strides(&sh_in, j->a, j->o.order, st, err))
        return CLI_ERROR;
    out_dims(ctx, st, ts_shape_ndim(&sh_in));
    out_char('\n');
    return CLI_OK;
}

/*
 * The shape and strides of one contiguous/view input: the line is SHAPE
 * when --strides was given, else "SHAPE STRIDES" (stdin only).
 */
static int shape_and_strides(const job *j, const char *text, size_t len, const int64_t **strides,
                             ts_error *err)
{
    if (j->has_list) {
        if (parse_whole_shape(text, len, &sh_in, err))
            return CLI_ERROR;
        *strides = ts_shape_dims(&j->list);
    } else {
        size_t pos = 0;
        skip_space(text, len, &pos);
        if (parse_shape_at(text, len, &pos, &sh_in, "the shape", err))
            return CLI_ERROR;
        if (pos == len)
            return cli_fail(err, TS_ERR_PARSE,
                        "expected strides after the shape at column %zu (each line is "
                        "SHAPE STRIDES when --strides is not given)", pos + 1);
        if (cli_list_parse(text + pos, len - pos, &sh_aux, err)) {
            char msg[TS_ERROR_MESSAGE_MAX];
            memcpy(msg, err->message, sizeof msg);
            return cli_fail(err, err->code, "strides starting at column %zu: %s", pos + 1, msg);
        }
        *strides = ts_shape_dims(&sh_aux);
    }
    const ts_shape *given = j->has_list ? &j->list : &sh_aux;
    int ns = ts_shape_ndim(given), nd = ts_shape_ndim(&sh_in);
    if (ns != nd) {
        char a[256], b[256];
        ts_shape_format(given, 0, a, sizeof a);
        ts_shape_format(&sh_in, 0, b, sizeof b);
        return cli_fail(err, TS_ERR_NDIM, "strides %s have %d entr%s but the shape %s has %d dim%s",
                    a, ns, ns == 1 ? "y" : "ies", b, nd, nd == 1 ? "" : "s");
    }
    return CLI_OK;
}

static void json_bool(const char *key, int v, int first)
{
    if (!first)
        out_char(',');
    out_json_string(key);
    out_str(v ? ":true" : ":false");
}

static void human_bool(const char *key, int v)
{
    out_str(key);
    out_str(v ? ": true\n" : ": false\n");
}

static int do_contiguous(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    const int64_t *strides;
    if (shape_and_strides(j, text, len, &strides, err))
        return CLI_ERROR;
    int64_t isz = j->a;
    int c = ts_is_c_contiguous(&sh_in, strides, isz);
    int f = ts_is_f_contiguous(&sh_in, strides, isz);
    int cl = ts_is_channels_last(&sh_in, strides, isz);
    int cl3 = ts_is_channels_last_3d(&sh_in, strides, isz);
    if (ctx->json) {
        out_char('{');
        json_bool("c_contiguous", c, 1);
        json_bool("f_contiguous", f, 0);
        json_bool("channels_last", cl, 0);
        json_bool("channels_last_3d", cl3, 0);
        out_str("}\n");
    } else {
        human_bool("c_contiguous", c);
        human_bool("f_contiguous", f);
        human_bool("channels_last", cl);
        human_bool("channels_last_3d", cl3);
    }
    return c ? CLI_OK : CLI_FALSE;
}

static int do_row_stride(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    ts_blob blob;
    if (parse_whole_shape(text, len, &sh_in, err) ||
        ts_blob_init(&blob, NULL, &sh_in, TS_DEV_CPU, TS_DTYPE_FLOAT32, err))
        return CLI_ERROR;
    blob.stride = j->a;
    int c = ts_blob_is_contiguous(&blob);
    ts_blob_free(&blob);
    if (ctx->json) {
        out_char('{');
        json_bool("contiguous", c, 1);
        out_str("}\n");
    } else {
        human_bool("contiguous", c);
    }
    return c ? CLI_OK : CLI_FALSE;
}

static int do_view(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    const int64_t *strides;
    int64_t res[TS_MAX_NDIM];
    if (shape_and_strides(j, text, len, &strides, err))
        return CLI_ERROR;
    ts_error why;
    ts_status st = ts_view_strides(&sh_in, strides, &j->list2, &sh_out, res, &why);
    if (st == TS_ERR_LAYOUT) {
        /* Not an error in the input: the answer is "no". */
        cli_error(NULL, "'%.*s': %s", (int)len, text, why.message);
        if (j->from_stdin)
            out_str(ctx->json ? "null\n" : "\n");
        return CLI_FALSE;
    }
    if (st) {
        *err = why;
        return CLI_ERROR;
    }
    out_dims(ctx, res, ts_shape_ndim(&sh_out));
    out_char('\n');
    return CLI_OK;
}

/* "SHAPE INDEX" / "SHAPE FLAT": the shape, then the rest of the line. */
static int shape_then_rest(const char *text, size_t len, size_t *rest, ts_error *err)
{
    size_t pos = 0;
    skip_space(text, len, &pos);
    if (parse_shape_at(text, len, &pos, &sh_in, "the shape", err))
        return CLI_ERROR;
    if (pos == len)
        return cli_fail(err, TS_ERR_PARSE, "expected an index after the shape at column %zu",
                    pos + 1);
    *rest = pos;
    return CLI_OK;
}

static int do_ravel(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)ctx;
    job *j = user;
    size_t pos = 0;
    int64_t flat;
    if (shape_then_rest(text, len, &pos, err))
        return CLI_ERROR;
    if (cli_list_parse(text + pos, len - pos, &sh_aux, err)) {
        char msg[TS_ERROR_MESSAGE_MAX];
        memcpy(msg, err->message, sizeof msg);
        return cli_fail(err, err->code, "index starting at column %zu: %s", pos + 1, msg);
    }
    if (ts_ravel_index(&sh_in, ts_shape_dims(&sh_aux), (size_t)ts_shape_ndim(&sh_aux),
                       j->o.order, j->modes, j->nmodes, &flat, err))
        return CLI_ERROR;
    out_i64(flat);
    out_char('\n');
    return CLI_OK;
}

static int do_unravel(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    job *j = user;
    size_t pos = 0;
    int64_t flat, idx[TS_MAX_NDIM];
    if (shape_then_rest(text, len, &pos, err))
        return CLI_ERROR;
    if (cli_list_parse(text + pos, len - pos, &sh_aux, err))
        return CLI_ERROR;
    if (ts_shape_ndim(&sh_aux) != 1)
        return cli_fail(err, TS_ERR_PARSE, "expected one flat index after the shape at column %zu, "
                    "found %d integers", pos + 1, ts_shape_ndim(&sh_aux));
    flat = ts_shape_dims(&sh_aux)[0];
    if (ts_unravel_index(&sh_in, flat, j->o.order, idx, err))
        return CLI_ERROR;
    out_dims(ctx, idx, ts_shape_ndim(&sh_in));
    out_char('\n');
    return CLI_OK;
}

/* ---- commands ------------------------------------------------------------ */

/* Runs fn over operands argv[first..] or stdin, then frees the scratch. */
static int run(cli_ctx *ctx, int argc, char **argv, int first, cli_input_fn fn, job *j)
{
    j->from_stdin = stdin_mode(argc - first, argv + first);
    int rc = cli_for_each_input(ctx, argc - first, argv + first, fn, j);
    free_scratch(j);
    return rc;
}

/* Runs fn once on the operands joined by spaces ("SHAPE INDEX", the shapes
 * of a broadcast), or on stdin lines when there are none. */
static int run_joined(cli_ctx *ctx, int argc, char **argv, int first, cli_input_fn fn, job *j)
{
    int n = argc - first;
    if (stdin_mode(n, argv + first))
        return run(ctx, argc, argv, first, fn, j);
    size_t total = 1;
    for (int i = first; i < argc; i++)
        total += strlen(argv[i]) + 1;
    char *line = malloc(total);
    if (!line)
        return cli_error(NULL, "out of memory");
    size_t pos = 0;
    for (int i = first; i < argc; i++) {
        size_t k = strlen(argv[i]);
        if (pos)
            line[pos++] = ' ';
        memcpy(line + pos, argv[i], k);
        pos += k;
    }
    line[pos] = '\0';
    char *args[1] = {line};
    j->from_stdin = 0;
    int rc = cli_for_each_input(ctx, 1, args, fn, j);
    free(line);
    free_scratch(j);
    return rc;
}

static void job_init(job *j)
{
    memset(j, 0, sizeof *j);
    ts_shape_init(&j->list);
    ts_shape_init(&j->list2);
}

#define OPTIONS(allowed, extra)                                                    \
    job j;                                                                         \
    job_init(&j);                                                                  \
    int status;                                                                    \
    int first = get_options(ctx, argc, argv, (allowed), (extra), &j.o, &status);   \
    if (first < 0)                                                                 \
        return status

static int cmd_reshape(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_MXNET | O_REVERSE,
            "TARGET holds dims and at most one -1 (inferred), NumPy rules.\n"
            "  --mxnet     MXNet special values: 0 copy, -1 infer, -2 copy the rest,\n"
            "              -3 merge two, -4 A B split one into A x B (one may be -1)\n"
            "  --reverse   with --mxnet, match the special values right to left\n"
            "  -j, --json  print JSON arrays\n");
    if ((j.o.given & O_REVERSE) && !(j.o.given & O_MXNET))
        return cli_usage_error(ctx, "--reverse applies to MXNet special values: add --mxnet");
    if (first >= argc)
        return cli_usage_error(ctx, "missing TARGET, e.g. (-1,4)");
    if (cli_parse_list(argv[first], "TARGET", &j.list))
        return CLI_ERROR;
    j.flags = ((j.o.given & O_MXNET) ? TS_RESHAPE_MXNET : 0u) |
              ((j.o.given & O_REVERSE) ? TS_RESHAPE_REVERSE : 0u);
    return run(ctx, argc, argv, first + 1, do_reshape, &j);
}

static int cmd_broadcast(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(0, "Without operands, each stdin line holds the shapes to broadcast,\n"
               "separated by whitespace, e.g. (2,1) (3,).\n");
    int rc = run_joined(ctx, argc, argv, first, do_broadcast, &j);
    free_broadcast();
    return rc;
}

static int cmd_transpose(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_AXES, "Without AXES the dims are reversed. With two or more operands the\n"
                    "first is AXES; use --axes AXES to transpose several shapes, or '-'\n"
                    "to read the shapes from stdin.\n"
                    "  --axes AXES  the permutation, e.g. 1,0,2 or (1,0,2)\n");
    const char *axes = j.o.axes;
    if (!axes && argc - first >= 2)
        axes = argv[first++];
    if (axes) {
        if (cli_parse_list(axes, "AXES", &j.list))
            return CLI_ERROR;
        j.has_list = 1;
    }
    return run(ctx, argc, argv, first, do_transpose, &j);
}

static int cmd_squeeze(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_AXIS, "Without --axis every size-1 dim is removed.\n"
                    "  --axis AXES  remove exactly these axes (each must have size 1)\n");
    if (j.o.axis) {
        if (cli_parse_list(j.o.axis, "--axis", &j.list))
            return CLI_ERROR;
        j.has_list = 1;
    }
    return run(ctx, argc, argv, first, do_squeeze, &j);
}

static int cmd_expand(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(0, "AXES index the result (ndim + number of AXES dims), as NumPy expand_dims.\n");
    if (first >= argc)
        return cli_usage_error(ctx, "missing AXES, e.g. 0 or (0,-1)");
    if (cli_parse_list(argv[first], "AXES", &j.list))
        return CLI_ERROR;
    return run(ctx, argc, argv, first + 1, do_expand, &j);
}

static int cmd_moveaxis(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(0, "SRC and DST are single axes or lists of equal length, as NumPy moveaxis.\n");
    if (argc - first < 2)
        return cli_usage_error(ctx, "missing SRC and DST");
    if (cli_parse_list(argv[first], "SRC", &j.list) || cli_parse_list(argv[first + 1], "DST", &j.list2)) {
        free_scratch(&j);
        return CLI_ERROR;
    }
    if (ts_shape_ndim(&j.list) != ts_shape_ndim(&j.list2)) {
        int a = ts_shape_ndim(&j.list), b = ts_shape_ndim(&j.list2);
        free_scratch(&j);
        return cli_error(NULL, "moveaxis SRC '%s' has %d ax%s but DST '%s' has %d: they must "
                         "pair up", argv[first], a, a == 1 ? "is" : "es", argv[first + 1], b);
    }
    return run(ctx, argc, argv, first + 2, do_moveaxis, &j);
}

static int cmd_flatten(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(0, "Merges dims START..END, both inclusive (PyTorch flatten); negatives count\n"
               "from the end, so 0 -1 flattens everything. Compare flat2d and flat3d.\n");
    if (argc - first < 2)
        return cli_usage_error(ctx, "missing START and END");
    if (cli_parse_i64(ctx, argv[first], "START", &j.a) ||
        cli_parse_i64(ctx, argv[first + 1], "END", &j.b))
        return CLI_ERROR;
    return run(ctx, argc, argv, first + 2, do_flatten, &j);
}

static int cmd_strides(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_DTYPE | O_ORDER | O_ELEMENTS,
            "Strides of a dense array, in bytes as NumPy reports them.\n"
            "  --dtype DT    element type (default float64, NumPy's default): float32,\n"
            "                f4, <f4, bf16, or an MXNet type flag such as 0\n"
            "  --order C|F   row-major (default) or column-major\n"
            "  --elements    strides in elements instead of bytes\n");
    if (get_itemsize(ctx, &j.o, &j.a))
        return CLI_ERROR;
    return run(ctx, argc, argv, first, do_strides, &j);
}

static int cmd_contiguous(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_STRIDES | O_ROW_STRIDE | O_DTYPE | O_ELEMENTS,
            "Reports C/F contiguity (NumPy relaxed strides) and PyTorch channels_last\n"
            "(4-D) / channels_last_3d (5-D). Exit 0 if C-contiguous, 1 if not.\n"
            "  --strides S     strides, in bytes (default) or elements (--elements);\n"
            "                  without it each stdin line is SHAPE STRIDES\n"
            "  --dtype DT      element type for byte strides (default float64)\n"
            "  --elements      strides are in elements\n"
            "  --row-stride N  mshadow TBlob check instead: contiguous when the row\n"
            "                  stride (elements) equals the last dim\n");
    if (j.o.row_stride) {
        if (j.o.given & (O_STRIDES | O_DTYPE | O_ELEMENTS))
            return cli_usage_error(ctx, "--row-stride cannot be combined with --strides, "
                                        "--dtype or --elements");
        if (cli_parse_i64(ctx, j.o.row_stride, "--row-stride", &j.a))
            return CLI_ERROR;
        return run(ctx, argc, argv, first, do_row_stride, &j);
    }
    if (get_itemsize(ctx, &j.o, &j.a))
        return CLI_ERROR;
    if (j.o.strides) {
        if (cli_parse_list(j.o.strides, "--strides", &j.list))
            return CLI_ERROR;
        j.has_list = 1;
    } else if (!stdin_mode(argc - first, argv + first)) {
        return cli_usage_error(ctx, "missing --strides (or give no SHAPE and read "
                                    "SHAPE STRIDES lines from stdin)");
    }
    return run(ctx, argc, argv, first, do_contiguous, &j);
}

static int cmd_view(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_STRIDES,
            "Can a tensor of SHAPE with element STRIDES be viewed as TARGET without a\n"
            "copy (PyTorch view)? Prints the view's strides (exit 0), or says why not on\n"
            "stderr (exit 1). TARGET may hold one -1.\n"
            "  --strides S  element strides; without it each stdin line is SHAPE STRIDES\n");
    if (first >= argc)
        return cli_usage_error(ctx, "missing TARGET, e.g. (6,-1)");
    if (cli_parse_list(argv[first], "TARGET", &j.list2))
        return CLI_ERROR;
    first++;
    if (j.o.strides) {
        if (cli_parse_list(j.o.strides, "--strides", &j.list)) {
            free_scratch(&j);
            return CLI_ERROR;
        }
        j.has_list = 1;
    } else if (!stdin_mode(argc - first, argv + first)) {
        free_scratch(&j);
        return cli_usage_error(ctx, "missing --strides (or give no SHAPE and read "
                                    "SHAPE STRIDES lines from stdin)");
    }
    return run(ctx, argc, argv, first, do_view, &j);
}

/* --mode raise|wrap|clip or a comma list of them. */
static int parse_modes(const cli_ctx *ctx, const char *text, job *j)
{
    const char *p = text;
    j->nmodes = 0;
    for (;;) {
        size_t k = strcspn(p, ",");
        ts_index_mode m;
        if (k == 5 && strncmp(p, "raise", 5) == 0)
            m = TS_INDEX_RAISE;
        else if (k == 4 && strncmp(p, "wrap", 4) == 0)
            m = TS_INDEX_WRAP;
        else if (k == 4 && strncmp(p, "clip", 4) == 0)
            m = TS_INDEX_CLIP;
        else
            return cli_usage_error(ctx, "--mode '%s': expected raise, wrap or clip, or a "
                                        "comma list of them (one per axis)", text);
        if (j->nmodes == TS_MAX_NDIM)
            return cli_usage_error(ctx, "--mode '%s': more than %d modes", text, TS_MAX_NDIM);
        j->modes[j->nmodes++] = m;
        if (!p[k])
            return CLI_OK;
        p += k + 1;
    }
}

static int cmd_ravel(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_ORDER | O_MODE,
            "Flat index of INDEX in SHAPE (NumPy ravel_multi_index). Without operands\n"
            "each stdin line is SHAPE INDEX.\n"
            "  --order C|F  row-major (default) or column-major\n"
            "  --mode M     raise (default), wrap or clip, or one per axis: clip,wrap\n");
    if (j.o.mode && parse_modes(ctx, j.o.mode, &j))
        return CLI_ERROR;
    int n = argc - first;
    if (!stdin_mode(n, argv + first) && n != 2)
        return cli_usage_error(ctx, "expected SHAPE and INDEX, got %d operand%s", n,
                               n == 1 ? "" : "s");
    return run_joined(ctx, argc, argv, first, do_ravel, &j);
}

static int cmd_unravel(cli_ctx *ctx, int argc, char **argv)
{
    OPTIONS(O_ORDER, "Multi-index of the flat index FLAT in SHAPE (NumPy unravel_index).\n"
                     "Without operands each stdin line is SHAPE FLAT.\n"
                     "  --order C|F  row-major (default) or column-major\n");
    int n = argc - first;
    if (!stdin_mode(n, argv + first) && n != 2)
        return cli_usage_error(ctx, "expected SHAPE and FLAT, got %d operand%s", n,
                               n == 1 ? "" : "s");
    return run_joined(ctx, argc, argv, first, do_unravel, &j);
}

const cli_command cli_cmds_layout[] = {
    {"reshape", cmd_reshape, "reshape [--mxnet [--reverse]] TARGET SHAPE...",
     "reshape (NumPy -1 rule; MXNet 0 -1 -2 -3 -4 codes with --mxnet)"},
    {"broadcast", cmd_broadcast, "broadcast SHAPE SHAPE...",
     "NumPy broadcast of all the shapes"},
    {"transpose", cmd_transpose, "transpose [AXES | --axes AXES] SHAPE...",
     "permute dims (reverse without AXES)"},
    {"squeeze", cmd_squeeze, "squeeze [--axis AXES] SHAPE...", "remove size-1 dims"},
    {"expand", cmd_expand, "expand AXES SHAPE...",
     "insert size-1 dims at AXES of the result (expand_dims)"},
    {"moveaxis", cmd_moveaxis, "moveaxis SRC DST SHAPE...", "move axes SRC to positions DST"},
    {"flatten", cmd_flatten, "flatten START END SHAPE...",
     "merge dims START..END inclusive (PyTorch flatten)"},
    {"strides", cmd_strides, "strides [--dtype DT] [--order C|F] [--elements] SHAPE...",
     "strides of a dense array (bytes; default dtype float64)"},
    {"contiguous", cmd_contiguous,
     "contiguous --strides S [--dtype DT] [--elements] SHAPE | --row-stride N SHAPE",
     "C/F/channels_last contiguity; exit 0 if C-contiguous, 1 if not"},
    {"view", cmd_view, "view TARGET --strides S SHAPE",
     "strides of a no-copy view as TARGET (PyTorch view), or exit 1"},
    {"ravel", cmd_ravel, "ravel [--order C|F] [--mode M] SHAPE INDEX",
     "flat index of a multi-index (ravel_multi_index)"},
    {"unravel", cmd_unravel, "unravel [--order C|F] SHAPE FLAT",
     "multi-index of a flat index (unravel_index)"},
    {NULL, NULL, NULL, NULL},
};
