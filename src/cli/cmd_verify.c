/*
 * cmd_verify.c - tshape verify: is a checkpoint complete and consistent?
 * The library decides (ts_verify_path); this prints its problems, one line
 * each, and a verdict line per PATH, or the JSON records of the man page
 * (verify problem record, verify verdict record).
 *
 * Exit status: 0 complete and consistent, 1 incomplete, corrupt or
 * inconsistent, 2 unreadable (or PATH cannot be verified at all).
 */
#include "cli.h"
#include "model.h"

#include <stdio.h>
#include <string.h>

const cli_option verify_options[] = {
    CLI_ABOUT("Checks that a checkpoint (a file, a folder of shards, an index, a URL) is\n"
              "complete and consistent: every shard present and exactly as long as its\n"
              "header says, the index and the headers in agreement, no Git LFS pointer or\n"
              "partial download in place of a file. --deep reads the data too: CRC-32 of\n"
              "every zip member, CRC-32C of every TensorFlow checkpoint tensor, every\n"
              "tensor readable, NaN and Inf counted. Exit status:\n"
              "0 complete and consistent, 1 incomplete, corrupt or inconsistent, 2\n"
              "unreadable."),
    CLI_FLAG("deep", 'd', "read the data (all cores): zip CRC-32s, TF CRC-32Cs, NaN/Inf, read errors"),
    CLI_FLAG("quiet", 'q', "print nothing: the exit status says it"),
    CLI_FLAG("recursive", 'r', "a PATH that is a folder without an index: its subfolders too"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

static int exit_status(ts_verify_class c)
{
    return c == TS_VERIFY_OK ? CLI_OK : c == TS_VERIFY_UNREADABLE ? CLI_ERROR : CLI_FALSE;
}

static void problem_record(cli_ctx *ctx, const char *path, const ts_verify_problem *p)
{
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "check", NULL, ts_verify_check_name(p->check));
    print_string(ctx, PRINT_JSON, "class", NULL, ts_verify_class_name(p->cls));
    print_bool(ctx, PRINT_JSON, "error", NULL, p->cls != TS_VERIFY_OK);
    print_string(ctx, PRINT_JSON, "path", NULL, path);
    print_string(ctx, PRINT_JSON, "file", NULL, p->path);
    print_string(ctx, PRINT_JSON, "name", NULL, p->name);
    print_string(ctx, PRINT_JSON, "message", NULL, p->message);
    /* -1: not known, or not a number of this check */
    if (p->expected < 0)
        print_null(ctx, PRINT_JSON, "expected", NULL);
    else
        print_int(ctx, PRINT_JSON, "expected", NULL, p->expected);
    if (p->actual < 0)
        print_null(ctx, PRINT_JSON, "actual", NULL);
    else
        print_int(ctx, PRINT_JSON, "actual", NULL, p->actual);
    print_close_object(ctx);
}

/* "incomplete download: 2 errors (1 missing, 1 short), 1 warning; 3 files,
 * ..." */
static void verdict_text(cli_ctx *ctx, const char *path, const ts_verify *v)
{
    const ts_verify_totals *t = ts_verify_totals_of(v);
    size_t n = ts_verify_problem_count(v), errors = ts_verify_error_count(v);
    char h[32];
    out_escaped(ctx, CLI_ESC_TEXT, path, strlen(path));
    out_printf(ctx, ": %s", ts_verify_class_text(ts_verify_verdict(v)));
    if (errors > 0) {
        out_printf(ctx, ", %zu error%s (", errors, errors == 1 ? "" : "s");
        /* the errors by check, in the order of the enum */
        int first = 1;
        for (int c = 1; c <= TS_VERIFY_CHECK_MAX; c++) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++) {
                const ts_verify_problem *p = ts_verify_problem_at(v, i);
                k += p->check == (ts_verify_check)c && p->cls != TS_VERIFY_OK;
            }
            if (k)
                out_printf(ctx, "%s%zu %s", first ? "" : ", ", k,
                           ts_verify_check_name((ts_verify_check)c));
            first &= k == 0;
        }
        out_str(ctx, ")");
    }
    if (n > errors)
        out_printf(ctx, ", %zu warning%s", n - errors, n - errors == 1 ? "" : "s");
    out_printf(ctx, ": %lld file%s, %lld tensor%s, %lld bytes (%s)", (long long)t->files,
               t->files == 1 ? "" : "s", (long long)t->tensors, t->tensors == 1 ? "" : "s",
               (long long)t->nbytes, cli_human_bytes(t->nbytes, h, sizeof h));
    if (t->length_unchecked > 0)
        out_printf(ctx, "; %lld file%s without a length of its own", (long long)t->length_unchecked,
                   t->length_unchecked == 1 ? "" : "s");
    if (t->deep)
        out_printf(ctx, "; data read: %lld bytes, %lld CRC-32%s checked", (long long)t->data_bytes,
                   (long long)t->crc_checked, t->crc_checked == 1 ? "" : "s");
    else
        out_str(ctx, "; headers only (--deep reads the data)");
    out_char(ctx, '\n');
}

static void verdict_record(cli_ctx *ctx, const char *path, const ts_verify *v)
{
    const ts_verify_totals *t = ts_verify_totals_of(v);
    size_t n = ts_verify_problem_count(v), errors = ts_verify_error_count(v);
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "verified", NULL, path);
    print_string(ctx, PRINT_JSON, "verdict", NULL, ts_verify_class_name(ts_verify_verdict(v)));
    print_string(ctx, PRINT_JSON, "text", NULL, ts_verify_class_text(ts_verify_verdict(v)));
    print_int(ctx, PRINT_JSON, "errors", NULL, (int64_t)errors);
    print_int(ctx, PRINT_JSON, "warnings", NULL, (int64_t)(n - errors));
    print_int(ctx, PRINT_JSON, "files", NULL, t->files);
    print_int(ctx, PRINT_JSON, "tensors", NULL, t->tensors);
    print_int(ctx, PRINT_JSON, "nbytes", NULL, t->nbytes);
    print_int(ctx, PRINT_JSON, "file_bytes", NULL, t->file_bytes);
    print_int(ctx, PRINT_JSON, "length_checked", NULL, t->length_checked);
    print_int(ctx, PRINT_JSON, "length_unchecked", NULL, t->length_unchecked);
    print_bool(ctx, PRINT_JSON, "deep", NULL, t->deep);
    print_int(ctx, PRINT_JSON, "crc_checked", NULL, t->crc_checked);
    print_int(ctx, PRINT_JSON, "data_bytes", NULL, t->data_bytes);
    print_close_object(ctx);
}

static int verify_one(cli_ctx *ctx, const char *path, const ts_verify_options *o, int quiet)
{
    ts_verify *v = NULL;
    ts_error err;
    if (cli_no_stdin(ctx, path) != CLI_OK)
        return CLI_ERROR;
    if (ts_verify_path(path, o, &v, &err) != TS_OK)
        return cli_error(ctx, path, "%s", err.message);
    if (!quiet) {
        for (size_t i = 0; i < ts_verify_problem_count(v); i++) {
            const ts_verify_problem *p = ts_verify_problem_at(v, i);
            if (ctx->json) {
                problem_record(ctx, path, p);
            } else {
                out_printf(ctx, "%s: ", p->cls != TS_VERIFY_OK ? ts_verify_check_name(p->check)
                                                               : "warning");
                out_escaped(ctx, CLI_ESC_SAFE, p->message, strlen(p->message));
                out_char(ctx, '\n');
            }
        }
        if (ctx->json)
            verdict_record(ctx, path, v);
        else
            verdict_text(ctx, path, v);
    }
    int status = exit_status(ts_verify_verdict(v));
    ts_verify_free(v);
    return status;
}

int cmd_verify(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 1)
        return cli_usage(ctx, "expected PATH...");
    ts_open_options open;
    if (!cli_open_options(ctx, args, &open))
        return CLI_ERROR;
    cli_progress progress;
    cli_progress_init(&progress, "verify");
    ts_verify_options o = TS_VERIFY_OPTIONS_INIT;
    o.deep = cli_flag(args, "deep") > 0;
    o.recursive = cli_flag(args, "recursive") > 0;
    o.open = &open;
    int quiet = cli_flag(args, "quiet") > 0;
    if (progress.enabled && o.deep) {
        o.progress = cli_progress_report;
        o.progress_ctx = &progress;
    }
    int status = CLI_OK;
    for (int i = 0; i < args->nops && !ctx->out.closed; i++) {
        cli_progress_start(&progress, args->ops[i], NULL);
        int s = verify_one(ctx, args->ops[i], &o, quiet);
        cli_progress_clear(&progress);
        status = cli_worse(status, s);
    }
    return out_finish(ctx, status);
}
