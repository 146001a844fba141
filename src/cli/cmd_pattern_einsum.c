/*
 * cmd_pattern_einsum.c - einsum (NumPy output shape) and compose
 * (TensorWrapper labelled composition).
 *
 * einsum SPEC SHAPE... computes one result; with no operands at all it reads
 * stdin lines "SPEC SHAPE SHAPE..." (SPEC without spaces), one result per
 * line, which is how the NumPy cross-check runs thousands of cases in one
 * process.
 */
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPERANDS 256

/* Reusable operand shapes for the line mode. */
static ts_shape ops[MAX_OPERANDS];
static int ops_ready;

static void ops_init(void)
{
    if (!ops_ready) {
        for (int i = 0; i < MAX_OPERANDS; i++)
            ts_shape_init(&ops[i]);
        ops_ready = 1;
    }
}

static void ops_free(void)
{
    for (int i = 0; i < MAX_OPERANDS && ops_ready; i++)
        ts_shape_free(&ops[i]);
    ops_ready = 0;
}

static void set_error(ts_error *err, const char *msg)
{
    size_t n = strlen(msg);
    if (n >= sizeof err->message)
        n = sizeof err->message - 1;
    memcpy(err->message, msg, n);
    err->message[n] = '\0';
    err->code = TS_ERR_PARSE;
    err->column = 0;
    err->offset = -1;
}

static int emit(cli_ctx *ctx, const char *spec, int n, ts_error *err)
{
    ts_shape out = TS_SHAPE_INIT;
    int rc = CLI_ERROR;
    if (ts_einsum_shape(spec, ops, n, &out, err) == TS_OK) {
        out_shape(ctx, &out);
        out_char('\n');
        rc = CLI_OK;
    }
    ts_shape_free(&out);
    return rc;
}

/* One stdin line: SPEC SHAPE SHAPE... */
static int do_line(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)user;
    char spec[1024];
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    size_t s = i;
    while (i < len && text[i] != ' ' && text[i] != '\t')
        i++;
    if (i - s >= sizeof spec) {
        set_error(err, "the SPEC is longer than 1023 bytes");
        return CLI_ERROR;
    }
    memcpy(spec, text + s, i - s);
    spec[i - s] = '\0';
    int n = 0;
    for (;;) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i == len)
            break;
        if (n == MAX_OPERANDS) {
            set_error(err, "more than 256 operands");
            return CLI_ERROR;
        }
        size_t used = 0;
        if (ts_shape_parse(text + i, len - i, 0, &ops[n], &used, err) != TS_OK) {
            /* Name the operand: its shape's column is relative to it. */
            char tmp[TS_ERROR_MESSAGE_MAX];
            int k = snprintf(tmp, sizeof tmp, "operand %d at column %zu: ", n, i + 1);
            size_t room = sizeof tmp - (size_t)k - 1, m = strlen(err->message);
            memcpy(tmp + k, err->message, m < room ? m : room);
            tmp[(size_t)k + (m < room ? m : room)] = '\0';
            memcpy(err->message, tmp, sizeof tmp);
            return CLI_ERROR;
        }
        i += used;
        n++;
    }
    if (n == 0) {
        set_error(err, "expected a SPEC followed by at least one SHAPE");
        return CLI_ERROR;
    }
    return emit(ctx, spec, n, err);
}

int pat_cmd_einsum(cli_ctx *ctx, int argc, char **argv)
{
    static const char extra[] =
        "NumPy einsum output shape: implicit mode (labels seen once, sorted), '->'\n"
        "explicit output, '...' broadcasting, repeated labels (diagonals), size-1\n"
        "dims broadcast. With no operands, reads lines 'SPEC SHAPE SHAPE...'.\n";
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, 0, extra, &o, &status);
    if (first < 0)
        return status;
    int n = argc - first;
    ops_init();
    int rc;
    if (n == 0 || (n == 1 && strcmp(argv[first], "-") == 0)) {
        rc = cli_for_each_input(ctx, 0, NULL, do_line, NULL);
    } else if (n == 1) {
        rc = cli_usage_error(ctx, "missing SHAPE operands after SPEC '%s'", argv[first]);
    } else if (n - 1 > MAX_OPERANDS) {
        rc = cli_usage_error(ctx, "more than %d operands", MAX_OPERANDS);
    } else {
        rc = CLI_OK;
        for (int i = 0; i < n - 1 && rc == CLI_OK; i++)
            rc = cli_parse_shape(argv[first + 1 + i], 0, &ops[i]);
        if (rc == CLI_OK) {
            ts_error err;
            rc = emit(ctx, argv[first], n - 1, &err);
            if (rc)
                cli_error(NULL, "'%s': %s", argv[first], err.message);
        }
    }
    ops_free();
    return rc;
}

int pat_cmd_compose(cli_ctx *ctx, int argc, char **argv)
{
    static const char extra[] =
        "TensorWrapper labelled composition, result(RESULT) = in0(LABELS) * ...:\n"
        "each result label takes its extent from the inputs that have it;\n"
        "labels shared by inputs must have equal extents. Labels are\n"
        "comma-separated names, e.g. 'i,j,k'.\n";
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, 0, extra, &o, &status);
    if (first < 0)
        return status;
    int n = argc - first;
    if (n < 3 || (n - 1) % 2 != 0)
        return cli_usage_error(ctx, "expected RESULT then LABELS SHAPE pairs, got %d operand%s",
                               n, n == 1 ? "" : "s");
    int nin = (n - 1) / 2;
    ts_shape *shapes = malloc((size_t)nin * sizeof *shapes);
    const char **labels = malloc((size_t)nin * sizeof *labels);
    if (!shapes || !labels) {
        free(shapes);
        free(labels);
        return cli_error(NULL, "out of memory");
    }
    for (int i = 0; i < nin; i++)
        ts_shape_init(&shapes[i]);
    int rc = CLI_OK;
    for (int i = 0; i < nin && rc == CLI_OK; i++) {
        labels[i] = argv[first + 1 + 2 * i];
        rc = cli_parse_shape(argv[first + 2 + 2 * i], 0, &shapes[i]);
    }
    if (rc == CLI_OK) {
        ts_shape out = TS_SHAPE_INIT;
        ts_error err;
        if (ts_label_compose(argv[first], labels, shapes, nin, &out, &err) == TS_OK) {
            out_shape(ctx, &out);
            out_char('\n');
        } else {
            rc = cli_error(NULL, "%s", err.message);
        }
        ts_shape_free(&out);
    }
    for (int i = 0; i < nin; i++)
        ts_shape_free(&shapes[i]);
    free(shapes);
    free(labels);
    return rc;
}
