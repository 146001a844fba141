/*
 * cmd_einsum.c - einsum (NumPy's output shape) and compose (TensorWrapper
 * labelled composition).
 *
 * einsum SPEC SHAPE... computes one result; with no operands at all it reads
 * stdin lines "SPEC SHAPE SHAPE..." (SPEC without spaces), one result per
 * line, which is how the NumPy cross-check runs thousands of cases in one
 * process.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option einsum_options[] = {
    CLI_ABOUT("NumPy einsum output shape: implicit mode (labels seen once, sorted), '->'\n"
              "explicit output, '...' broadcasting, repeated labels (diagonals), size-1\n"
              "dims broadcast. With no operands, reads lines 'SPEC SHAPE SHAPE...'."),
    CLI_OPTIONS_END,
};

const cli_option compose_options[] = {
    CLI_ABOUT("TensorWrapper labelled composition, result(RESULT) = in0(LABELS) * ...:\n"
              "each result label takes its extent from the inputs that have it;\n"
              "labels shared by inputs must have equal extents. Labels are\n"
              "comma-separated names, e.g. 'i,j,k'."),
    CLI_OPTIONS_END,
};

#define MAX_OPERANDS 256

/* Operand shapes, reused across stdin lines. */
typedef struct einsum_job {
    ts_shape ops[MAX_OPERANDS];
    ts_shape out;
} einsum_job;

static int print_einsum(cli_ctx *ctx, einsum_job *j, const char *spec, int n, ts_error *err)
{
    if (ts_einsum_shape(spec, j->ops, n, &j->out, err) != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->out, err);
}

static size_t skip_blanks(const char *text, size_t len, size_t i)
{
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    return i;
}

/* One stdin line: SPEC SHAPE SHAPE... */
static int do_line(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    einsum_job *j = job;
    char spec[1024];
    size_t i = skip_blanks(text, len, 0), s = i;
    while (i < len && text[i] != ' ' && text[i] != '\t')
        i++;
    if (i - s >= sizeof spec)
        return cli_fail(err, TS_ERR_PARSE, "the SPEC is longer than %zu bytes", sizeof spec - 1);
    memcpy(spec, text + s, i - s);
    spec[i - s] = '\0';
    int n = 0;
    for (i = skip_blanks(text, len, i); i < len; i = skip_blanks(text, len, i)) {
        if (n == MAX_OPERANDS)
            return cli_fail(err, TS_ERR_PARSE, "more than %d operands", MAX_OPERANDS);
        size_t used = 0;
        /* Name the operand: its shape's column is relative to it. */
        if (ts_shape_parse(text + i, len - i, 0, &j->ops[n], &used, err) != TS_OK)
            return cli_fail_prefix(err, "operand %d at column %zu: ", n, i + 1);
        i += used;
        n++;
    }
    if (n == 0)
        return cli_fail(err, TS_ERR_PARSE, "expected a SPEC followed by at least one SHAPE");
    return print_einsum(ctx, j, spec, n, err);
}

/* SPEC SHAPE... as operands. */
static int einsum_operands(cli_ctx *ctx, const cli_args *args, einsum_job *j)
{
    int n = args->nops - 1;
    char q[256];
    const char *spec = args->ops[0];
    if (n == 0)
        return cli_usage(ctx, "missing SHAPE operands after SPEC '%s'",
                         cli_quote(spec, strlen(spec), q, sizeof q));
    if (n > MAX_OPERANDS)
        return cli_usage(ctx, "more than %d operands", MAX_OPERANDS);
    for (int i = 0; i < n; i++)
        if (cli_arg_shape(ctx, args->ops[1 + i], NULL, &j->ops[i]))
            return CLI_ERROR;
    ts_error err;
    if (print_einsum(ctx, j, spec, n, &err))
        return cli_error(ctx, NULL, "'%s': %s", cli_quote(spec, strlen(spec), q, sizeof q),
                         err.message);
    return CLI_OK;
}

int cmd_einsum(cli_ctx *ctx, const cli_args *args)
{
    einsum_job *j = malloc(sizeof *j);
    if (!j)
        return cli_error(ctx, NULL, "out of memory");
    for (int i = 0; i < MAX_OPERANDS; i++)
        ts_shape_init(&j->ops[i]);
    ts_shape_init(&j->out);
    int rc = cli_stdin_mode(args->nops, args->ops) ? cli_each_input(ctx, 0, NULL, do_line, j)
                                                   : einsum_operands(ctx, args, j);
    for (int i = 0; i < MAX_OPERANDS; i++)
        ts_shape_free(&j->ops[i]);
    ts_shape_free(&j->out);
    free(j);
    return rc;
}

int cmd_compose(cli_ctx *ctx, const cli_args *args)
{
    int n = args->nops;
    if (n < 3 || (n - 1) % 2 != 0)
        return cli_usage(ctx, "expected RESULT then LABELS SHAPE pairs, got %d operand%s", n,
                         n == 1 ? "" : "s");
    int nin = (n - 1) / 2;
    ts_shape *shapes = malloc((size_t)nin * sizeof *shapes);
    const char **labels = malloc((size_t)nin * sizeof *labels);
    ts_shape out = TS_SHAPE_INIT;
    int rc = CLI_OK;
    if (!shapes || !labels) {
        free(shapes);
        free(labels);
        return cli_error(ctx, NULL, "out of memory");
    }
    for (int i = 0; i < nin; i++)
        ts_shape_init(&shapes[i]);
    for (int i = 0; i < nin && rc == CLI_OK; i++) {
        labels[i] = args->ops[1 + 2 * i];
        rc = cli_arg_shape(ctx, args->ops[2 + 2 * i], NULL, &shapes[i]);
    }
    ts_error err;
    if (rc == CLI_OK) {
        if (ts_label_compose(args->ops[0], labels, shapes, nin, &out, &err) != TS_OK ||
            out_shape_line(ctx, &out, &err) != CLI_OK)
            rc = cli_error(ctx, NULL, "%s", err.message);
    }
    ts_shape_free(&out);
    for (int i = 0; i < nin; i++)
        ts_shape_free(&shapes[i]);
    free(shapes);
    free(labels);
    return rc;
}
