/*
 * cmd_einops.c - rearrange, reduce, repeat and parse-shape: einops
 * patterns applied to shapes.
 *
 * The pattern (with its NAME=SIZE operands) is checked once; a broken
 * pattern is one error line. Then each SHAPE operand, or each stdin line
 * when there is none, gets one output line. Errors carry einops' envelope
 * on one line: rearrange "PATTERN" on shape (2,3,4,5) with h2=3: cause.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option rearrange_options[] = {
    CLI_ABOUT("einops.rearrange: 'b c (h h2) w -> b c h h2 w' with h2=2. Axis names,\n"
              "anonymous sizes, '1', one-level (groups) and one '...' per side; the\n"
              "same names on both sides. Operands K=N give axis lengths (einops'\n"
              "keyword arguments), the others are shapes; no shape: read stdin."),
    CLI_OPTIONS_END,
};

const cli_option reduce_options[] = {
    CLI_ABOUT("einops.reduce: names on the right are a subset of the left; the others\n"
              "are reduced. Operands K=N give axis lengths, the others are shapes."),
    CLI_CHOICE("op", 0, "NAME", "the reduction (no effect on shapes): sum, mean, max, min,\n"
               "prod, any or all",
               "sum mean max min prod any all"),
    CLI_OPTIONS_END,
};

const cli_option repeat_options[] = {
    CLI_ABOUT("einops.repeat: names on the left are a subset of the right; new axes\n"
              "need a size, as an operand K=N or an anonymous number."),
    CLI_OPTIONS_END,
};

const cli_option parse_shape_options[] = {
    CLI_ABOUT("einops.parse_shape: matches PATTERN (names, '_' to skip an axis, numbers\n"
              "that must equal the dim, '1', one '...') against SHAPE and prints\n"
              "name=size for the named axes ({\"name\":size} with --json)."),
    CLI_OPTIONS_END,
};

typedef struct einops_job {
    ts_einops *e;
    const char *pattern;  /* parse-shape */
    ts_shape in, out;
} einops_job;

static int apply(cli_ctx *ctx, einops_job *j, ts_error *err)
{
    if (ts_einops_apply(j->e, &j->in, &j->out, err) != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->out, err);
}

static int do_apply(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    einops_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK)
        return CLI_ERROR;
    return apply(ctx, j, err);
}

/* The operands after PATTERN: NAME=SIZE ones into sizes, the others into
 * shapes (arrays of args->nops entries). */
static int split_operands(cli_ctx *ctx, const cli_args *args, ts_axis_size *sizes, int *nsizes,
                          char **shapes, int *nshapes)
{
    *nsizes = *nshapes = 0;
    for (int i = 1; i < args->nops; i++) {
        const char *arg = args->ops[i], *eq = strchr(arg, '=');
        if (!eq) {
            shapes[(*nshapes)++] = args->ops[i];
            continue;
        }
        sizes[*nsizes].name = arg;
        sizes[*nsizes].name_len = (size_t)(eq - arg);
        if (cli_arg_i64(ctx, eq + 1, "SIZE", &sizes[*nsizes].size))
            return CLI_ERROR;
        ++*nsizes;
    }
    return CLI_OK;
}

/* Each SHAPE operand; errors name the shape through einops' envelope. */
static int apply_operands(cli_ctx *ctx, einops_job *j, char **shapes, int nshapes)
{
    int rc = CLI_OK;
    for (int i = 0; i < nshapes && !ctx->out.closed; i++) {
        ts_error err;
        if (cli_arg_shape(ctx, shapes[i], NULL, &j->in))
            rc = CLI_ERROR;
        else if (apply(ctx, j, &err))
            rc = cli_error(ctx, NULL, "%s", err.message);
    }
    return rc;
}

static int run_einops(cli_ctx *ctx, const cli_args *args, ts_einops_op op)
{
    if (args->nops < 1)
        return cli_usage(ctx, "missing PATTERN");
    ts_axis_size *sizes = malloc((size_t)args->nops * sizeof *sizes);
    char **shapes = malloc((size_t)args->nops * sizeof *shapes);
    einops_job j = {NULL, NULL, TS_SHAPE_INIT, TS_SHAPE_INIT};
    int nsizes = 0, nshapes = 0, rc;
    ts_error err;
    if (!sizes || !shapes)
        rc = cli_error(ctx, NULL, "out of memory");
    else
        rc = split_operands(ctx, args, sizes, &nsizes, shapes, &nshapes);
    if (rc == CLI_OK && ts_einops_compile(op, args->ops[0], sizes, nsizes, &j.e, &err) != TS_OK)
        rc = cli_error(ctx, NULL, "%s", err.message);
    if (rc == CLI_OK)
        rc = cli_stdin_mode(nshapes, shapes) ? cli_each_input(ctx, 0, NULL, do_apply, &j)
                          : apply_operands(ctx, &j, shapes, nshapes);
    ts_einops_free(j.e);
    ts_shape_free(&j.in);
    ts_shape_free(&j.out);
    free(sizes);
    free(shapes);
    return rc;
}

int cmd_rearrange(cli_ctx *ctx, const cli_args *args)
{
    return run_einops(ctx, args, TS_EINOPS_REARRANGE);
}

/* --op has no effect on shapes, but must be one of einops' reductions. */
int cmd_reduce(cli_ctx *ctx, const cli_args *args)
{
    const char *op;
    if (cli_opt_choice(ctx, args, "op", &op) != CLI_OK)
        return CLI_ERROR;
    return run_einops(ctx, args, TS_EINOPS_REDUCE);
}

int cmd_repeat(cli_ctx *ctx, const cli_args *args)
{
    return run_einops(ctx, args, TS_EINOPS_REPEAT);
}

/* ---- parse-shape -------------------------------------------------------------- */

/* name=size pairs separated by spaces; JSON {"name":size,...}. */
static void print_named(cli_ctx *ctx, const ts_axis_size *ax, int n)
{
    print_open_object(ctx, NULL);
    for (int i = 0; i < n; i++) {
        char name[256], fmt[300];
        size_t k = ax[i].name_len < sizeof name - 1 ? ax[i].name_len : sizeof name - 1;
        memcpy(name, ax[i].name, k);
        name[k] = '\0';
        /* Axis names are identifiers (the library checks), safe in a format. */
        snprintf(fmt, sizeof fmt, "%s%s=%%s", i ? " " : "", name);
        print_int(ctx, PRINT_ANY, name, fmt, ax[i].size);
    }
    print_close_object(ctx);
    print_text(ctx, "\n");
}

static int parse_shape(cli_ctx *ctx, einops_job *j, ts_error *err)
{
    ts_axis_size ax[TS_MAX_NDIM];
    size_t n;
    if (ts_einops_parse_shape(j->pattern, &j->in, ax, &n, err) != TS_OK)
        return CLI_ERROR;
    print_named(ctx, ax, (int)n);
    return CLI_OK;
}

static int do_parse_shape(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    einops_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK)
        return CLI_ERROR;
    return parse_shape(ctx, j, err);
}

int cmd_parse_shape(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 1)
        return cli_usage(ctx, "missing PATTERN");
    einops_job j = {NULL, args->ops[0], TS_SHAPE_INIT, TS_SHAPE_INIT};
    int rc = CLI_OK;
    if (args->nops == 1) {
        rc = cli_each_input(ctx, 0, NULL, do_parse_shape, &j);
    } else {
        for (int i = 1; i < args->nops && !ctx->out.closed; i++) {
            ts_error err;
            if (cli_arg_shape(ctx, args->ops[i], NULL, &j.in))
                rc = CLI_ERROR;
            else if (parse_shape(ctx, &j, &err))
                rc = cli_error(ctx, NULL, "%s", err.message);
        }
    }
    ts_shape_free(&j.in);
    return rc;
}
