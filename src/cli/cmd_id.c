/*
 * cmd_id.c - tshape id: the structural fingerprint of a file or model
 * (ts_model_fingerprint): "SHA256  PATH" per PATH, as sha256sum prints, or
 * the canonical listing it hashes (--listing), or JSON records (man page:
 * id record).
 */
#include "cli.h"
#include "model.h"

#include <string.h>

const cli_option id_options[] = {
    CLI_ABOUT("Prints the SHA-256 of a canonical listing of the tensors of each PATH (a\n"
              "file, a model folder, an index, a URL): their names, dtypes and shapes,\n"
              "sorted, without offsets, formats or metadata, so that a file and its\n"
              "conversion have the same id. --values puts the SHA-256 of each tensor's\n"
              "data (C order, little-endian) in the listing."),
    CLI_FLAG("values", 0, "hash the data too (reads every tensor, all cores)"),
    CLI_FLAG("listing", 'l', "print the canonical listing that is hashed, not the id"),
    CLI_FLAG("recursive", 'r', "a PATH that is a folder without an index: its subfolders too"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

/* --listing: the library's lines, escaped for a terminal. */
static int write_listing(void *user, const char *data, size_t len)
{
    cli_ctx *ctx = user;
    out_escaped(ctx, CLI_ESC_TEXT, data, len - (len && data[len - 1] == '\n'));
    out_char(ctx, '\n');
    return ctx->out.closed;
}

static int id_one(cli_ctx *ctx, const char *path, const ts_open_options *open,
                  ts_fingerprint_options *fo, int recursive, cli_progress *progress)
{
    if (cli_no_stdin(ctx, path) != CLI_OK)
        return CLI_ERROR;
    ts_model *m = cli_model_open(ctx, path, open, recursive);
    if (!m)
        return CLI_ERROR;
    int status = ts_model_error_count(m) ? CLI_ERROR : CLI_OK;
    ts_fingerprint fp;
    ts_error err;
    fo->listing_user = ctx;
    cli_progress_start(progress, path, NULL);
    ts_status st = ts_model_fingerprint(m, fo, &fp, &err);
    cli_progress_clear(progress);
    if (st != TS_OK) {
        status = cli_error(ctx, path, "%s", err.message);
    } else if (ctx->json && !fo->listing) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "id", NULL, fp.sha256);
        print_string(ctx, PRINT_JSON, "path", NULL, path);
        print_int(ctx, PRINT_JSON, "tensors", NULL, fp.tensors);
        print_bool(ctx, PRINT_JSON, "values", NULL, fp.values);
        print_int(ctx, PRINT_JSON, "nbytes", NULL, fp.nbytes);
        print_int(ctx, PRINT_JSON, "errors", NULL, (int64_t)ts_model_error_count(m));
        print_close_object(ctx);
    } else if (!fo->listing) {
        out_str(ctx, fp.sha256);
        out_str(ctx, "  ");
        out_escaped(ctx, CLI_ESC_TEXT, path, strlen(path));
        out_char(ctx, '\n');
    }
    ts_model_close(m);
    return status;
}

int cmd_id(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 1)
        return cli_usage(ctx, "expected PATH...");
    ts_open_options open;
    if (!cli_open_options(ctx, args, &open))
        return CLI_ERROR;
    if (ctx->json && cli_flag(args, "listing"))
        return cli_usage(ctx, "--listing prints text: it has no JSON form");
    ts_fingerprint_options fo = TS_FINGERPRINT_OPTIONS_INIT;
    fo.values = cli_flag(args, "values") > 0;
    if (cli_flag(args, "listing"))
        fo.listing = write_listing;
    cli_progress progress;
    cli_progress_init(&progress, "id");
    if (progress.enabled && fo.values) {
        fo.progress = cli_progress_report;
        fo.progress_ctx = &progress;
    }
    int status = CLI_OK, recursive = cli_flag(args, "recursive") > 0;
    for (int i = 0; i < args->nops && !ctx->out.closed; i++)
        status = cli_worse(status, id_one(ctx, args->ops[i], &open, &fo, recursive, &progress));
    return out_finish(ctx, status);
}
