/*
 * model.h - models (folders, sharded checkpoints) in the CLI: opening one
 * with its issues reported, the model-level summary of info --summary, and
 * the number formats they share with diff.
 */
#ifndef TSHAPE_CLI_MODEL_H
#define TSHAPE_CLI_MODEL_H

#include "cli.h"

/* 1 when path is read as a model rather than a file: a folder, an index
 * file (*.index.json), a remote folder (ts_model_path). */
int cli_is_model_path(const char *path);


/*
 * Opens the model at path (ts_model_open with the member options `open`)
 * and reports its issues on standard error, in the error-line form:
 * errors as errors (ctx->status becomes 2: an incomplete model), warnings
 * as "warning: ..." notices. Returns the model, or NULL after reporting why
 * it could not be opened.
 */
ts_model *cli_model_open(cli_ctx *ctx, const char *path, const ts_open_options *open,
                         int recursive);

/* The most --top accepts (the library's bound of ts_summary_options.top). */
#define CLI_TOP_MAX (1 << 20)

/* What info --summary does with models. */
typedef struct cli_summary_opts {
    const ts_open_options *open;
    const cli_filter *filter; /* --filter/--exclude */
    int recursive;        /* -r */
    int group;            /* --group: collapse layer numbers */
    int64_t top;          /* --top N: how many of the largest tensors */
    int tensors;          /* --tensors: JSON lists every tensor */
    int memory;           /* --memory: weights and KV cache (ts_model_memory) */
    ts_memory_options mem; /* --context, --batch, --kv-dtype */
} cli_summary_opts;

/* info --summary on a model (or a file read as one): one summary per path.
 * Returns the exit status. */
int cli_model_summary(cli_ctx *ctx, const cli_summary_opts *o, char *const *paths, int n);

/* The JSON object "total" of a summary record (file or model: man page,
 * JSON RECORDS): files, the sums of every tensor, per role and per dtype. */
void cli_total_json(cli_ctx *ctx, int64_t files, const ts_summary *s);
/* The total line of info --summary ("total: files=1 tensors=3 size=225
 * nbytes=904 | float32: ... | parameters: ..."), on standard error after
 * what standard output holds, so the rows alone feed a pipeline. */
void cli_total_line(cli_ctx *ctx, int64_t files, const ts_summary *s);
/* The word of a role's totals: "parameters", "buffers", "optimizer_state". */
const char *cli_role_key(ts_role r);

/* Human units: parameters with K, M, B, T and three significant digits
 * ("6.74B", "999"); bytes with binary units ("2.78 KiB", "512 B"). */
const char *cli_human_count(int64_t v, char *buf, size_t cap);
const char *cli_human_bytes(int64_t v, char *buf, size_t cap);

/* Rows of cells printed in aligned columns: each padded to its widest cell,
 * a column whose `right` bit is set aligned on the right; two spaces between
 * columns, no blanks at the end of a line. Cells are escaped (CLI_ESC_TEXT)
 * when added, into one block of text (no allocation per cell: a folder of
 * 1,000 files prints 1,500 rows); empty trailing cells end the line early.
 * Initialise as {.ncols = N, .right = BITS}. */
#define CLI_TABLE_MAX_COLS 6
typedef struct cli_table {
    size_t *cells;        /* n * ncols + 1: where each cell's text starts in
                             text, the last where the next would */
    size_t n, cap;
    int ncols;            /* 1..CLI_TABLE_MAX_COLS */
    unsigned right;       /* bit c: column c is right-aligned */
    char *text;           /* the escaped cells one after the other */
    size_t len, text_cap;
    size_t width[CLI_TABLE_MAX_COLS]; /* bytes of each column's widest cell */
} cli_table;
/* Adds a row of t->ncols cells (NULL: empty). */
void cli_table_add(cli_table *t, const char *const *cols);
/* Prints the rows, each after `indent`, and empties the table. */
void cli_table_flush(cli_ctx *ctx, cli_table *t, const char *indent);

#endif
