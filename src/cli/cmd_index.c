/*
 * cmd_index.c - index math: ravel and unravel (NumPy ravel_multi_index and
 * unravel_index) and iter (TensorWrapper's index iteration).
 *
 * ravel and unravel take SHAPE and INDEX (or FLAT) as two operands, or
 * read "SHAPE INDEX" lines from stdin when there are none.
 */
#include "cli.h"

#include <string.h>

const cli_option ravel_options[] = {
    CLI_ABOUT("Flat index of INDEX in SHAPE (NumPy ravel_multi_index). Without operands\n"
              "each stdin line is SHAPE INDEX."),
    CLI_CHOICE("order", 0, "C|F", "row-major (default) or column-major", "C F"),
    CLI_CHOICE("mode", 0, "M", "raise (default), wrap or clip, or one per axis: clip,wrap",
               "raise wrap clip"),
    CLI_OPTIONS_END,
};

const cli_option unravel_options[] = {
    CLI_ABOUT("Multi-index of the flat index FLAT in SHAPE (NumPy unravel_index).\n"
              "Without operands each stdin line is SHAPE FLAT."),
    CLI_CHOICE("order", 0, "C|F", "row-major (default) or column-major", "C F"),
    CLI_OPTIONS_END,
};

const cli_option iter_options[] = {
    CLI_ABOUT("Prints every index of SHAPE in lexicographic (C) order, one per line:\n"
              "absolute indices origin + offset (TensorWrapper iteration)."),
    CLI_VALUE("origin", 0, "TUPLE", "origin of the indices (default all zeros)"),
    CLI_FLAG("offsets", 0, "print offsets from the origin instead"),
    CLI_OPTIONS_END,
};

typedef struct index_job {
    ts_shape shape, index;        /* the current input */
    char order;
    ts_index_mode modes[TS_MAX_NDIM];
    size_t nmodes;
} index_job;

/* --mode raise|wrap|clip or a comma list of them. */
static int get_modes(cli_ctx *ctx, const char *text, index_job *j)
{
    char q[128];
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
            return cli_usage(ctx, "--mode '%s': expected raise, wrap or clip, or a "
                                  "comma list of them (one per axis)",
                             cli_quote(text, strlen(text), q, sizeof q));
        if (j->nmodes == TS_MAX_NDIM)
            return cli_usage(ctx, "--mode '%s': more than %d modes",
                             cli_quote(text, strlen(text), q, sizeof q), TS_MAX_NDIM);
        j->modes[j->nmodes++] = m;
        if (!p[k])
            return CLI_OK;
        p += k + 1;
    }
}

static void job_init(index_job *j)
{
    memset(j, 0, sizeof *j);
    ts_shape_init(&j->shape);
    ts_shape_init(&j->index);
}

/* ---- ravel and unravel: the computations, on parsed values -------------------- */

static int ravel(cli_ctx *ctx, index_job *j, ts_error *err)
{
    int64_t flat;
    if (ts_ravel_index(&j->shape, ts_shape_dims(&j->index), (size_t)ts_shape_ndim(&j->index),
                       j->order, j->modes, j->nmodes, &flat, err) != TS_OK)
        return CLI_ERROR;
    out_i64(ctx, flat);
    out_char(ctx, '\n');
    return CLI_OK;
}

static int unravel(cli_ctx *ctx, index_job *j, ts_error *err)
{
    int64_t idx[TS_MAX_NDIM];
    if (ts_shape_ndim(&j->index) != 1)
        return cli_fail(err, TS_ERR_PARSE, "expected one flat index, found %d integers",
                        ts_shape_ndim(&j->index));
    if (ts_unravel_index(&j->shape, ts_shape_dims(&j->index)[0], j->order, idx, err) != TS_OK)
        return CLI_ERROR;
    out_dims(ctx, idx, ts_shape_ndim(&j->shape));
    out_char(ctx, '\n');
    return CLI_OK;
}

/* A stdin line "SHAPE INDEX" into j->shape and j->index. */
static int scan_line(index_job *j, const char *text, size_t len, ts_error *err)
{
    size_t pos = 0;
    if (cli_scan_shape(text, len, &pos, &j->shape, "the shape", err))
        return CLI_ERROR;
    if (pos == len)
        return cli_fail(err, TS_ERR_PARSE, "expected an index after the shape at column %zu",
                        pos + 1);
    if (cli_scan_int_list(text + pos, len - pos, &j->index, err))
        return cli_fail_prefix(err, "index starting at column %zu: ", pos + 1);
    return CLI_OK;
}

static int do_ravel(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    return scan_line(job, text, len, err) ? CLI_ERROR : ravel(ctx, job, err);
}

static int do_unravel(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    return scan_line(job, text, len, err) ? CLI_ERROR : unravel(ctx, job, err);
}

/* The two operands SHAPE and INDEX (`what`), or stdin lines. */
static int run(cli_ctx *ctx, const cli_args *args, const char *what, index_job *j,
               cli_line_fn line, int (*compute)(cli_ctx *, index_job *, ts_error *))
{
    int n = args->nops, rc;
    if (cli_stdin_mode(n, args->ops)) {
        rc = cli_each_input(ctx, 0, NULL, line, j);
    } else if (n != 2) {
        rc = cli_usage(ctx, "expected SHAPE and %s, got %d operand%s", what, n, n == 1 ? "" : "s");
    } else {
        ts_error err;
        rc = cli_arg_shape(ctx, args->ops[0], "SHAPE", &j->shape);
        if (rc == CLI_OK)
            rc = cli_arg_int_list(ctx, args->ops[1], what, &j->index);
        if (rc == CLI_OK && compute(ctx, j, &err))
            rc = cli_error(ctx, NULL, "%s", err.message);
    }
    ts_shape_free(&j->shape);
    ts_shape_free(&j->index);
    return rc;
}

int cmd_ravel(cli_ctx *ctx, const cli_args *args)
{
    index_job j;
    job_init(&j);
    const char *mode = cli_opt(args, "mode");
    if (cli_arg_order(ctx, cli_opt(args, "order"), &j.order) || (mode && get_modes(ctx, mode, &j)))
        return CLI_ERROR;
    return run(ctx, args, "INDEX", &j, do_ravel, ravel);
}

int cmd_unravel(cli_ctx *ctx, const cli_args *args)
{
    index_job j;
    job_init(&j);
    if (cli_arg_order(ctx, cli_opt(args, "order"), &j.order))
        return CLI_ERROR;
    return run(ctx, args, "FLAT", &j, do_unravel, unravel);
}

/* ---- iter --------------------------------------------------------------------- */

typedef struct iter_job {
    ts_shape shape;
    int64_t origin[TS_MAX_NDIM];
    int norigin;          /* -1: no --origin */
    int offsets;
} iter_job;

static int do_iter(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    iter_job *j = job;
    ts_index_iter it;
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK ||
        ts_index_iter_init(&it, &j->shape, j->norigin >= 0 ? j->origin : NULL,
                           j->norigin >= 0 ? j->norigin : 0, err) != TS_OK)
        return CLI_ERROR;
    const int64_t *v = j->offsets ? it.offset : it.index;
    /* The output may be huge: stop when the reader has gone. */
    while (!ctx->out.closed && ts_index_iter_next(&it)) {
        out_dims(ctx, v, it.ndim);
        out_char(ctx, '\n');
    }
    return CLI_OK;
}

int cmd_iter(cli_ctx *ctx, const cli_args *args)
{
    iter_job j = {TS_SHAPE_INIT, {0}, -1, 0};
    const char *origin = cli_opt(args, "origin");
    j.offsets = cli_flag(args, "offsets") > 0;
    if (origin && cli_arg_ints(ctx, origin, "--origin", j.origin, &j.norigin))
        return CLI_ERROR;
    int rc = cli_each_input(ctx, args->nops, args->ops, do_iter, &j);
    ts_shape_free(&j.shape);
    return rc;
}
