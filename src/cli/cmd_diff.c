/*
 * cmd_diff.c - tshape diff A B: the structural difference of two files or
 * models (folders, index files), of the same or different formats: tensors
 * only in A, only in B, and tensors whose dtype or shape differ; equal
 * tensors are counted. Exit 0 equal, 1 different, 2 error (as cmp, diff).
 *
 * Names are matched after mapping: --strip-prefix removes a prefix on
 * either side, --rename renames A's tensors. Each pair of tensors with one
 * name is compared by compare_pair(), the one place a comparison of the
 * data (diff --values) adds its kind of difference.
 */
#include "cli.h"
#include "model.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option diff_options[] = {
    CLI_ABOUT("A and B: files, model folders or index files (see info). Names are\n"
              "matched after --strip-prefix and --rename. Exit status 0 when A and B\n"
              "have the same tensors with the same dtypes and shapes, 1 when they\n"
              "differ, 2 on error (a model with a missing shard is an error).\n"
              "With --json, one object per difference, then one with the counts."),
    CLI_VALUE("strip-prefix", 'p', "A[:B]",
              "remove prefix A from A's names and B from B's (A alone: from both;\n"
              "a value ending in ':' is one prefix, as 'arg:'); repeatable"),
    CLI_VALUE("rename", 0, "MAPFILE",
              "lines 'A_NAME B_NAME': A's tensor A_NAME is B's B_NAME ('#' comments)"),
    CLI_FLAG("recursive", 'r', "folders without an index: their subfolders too"),
    CLI_FLAG("quiet", 'q', "print nothing; only the exit status"),
    CLI_OPTIONS_END,
};

/* One side: its model and each tensor's name after mapping. */
typedef struct side {
    const char *path;
    ts_model *m;
    char **key;           /* per tensor */
    size_t *order;        /* tensor indices sorted by key */
    size_t n;
} side;

typedef struct diff_opts {
    cli_names names;        /* --strip-prefix, --rename (names.c) */
    int quiet, recursive;
} diff_opts;

/* The kinds of difference, in the order of a report's counts. */
typedef enum diff_kind {
    DIFF_EQUAL,
    DIFF_ONLY_A,
    DIFF_ONLY_B,
    DIFF_DTYPE,
    DIFF_SHAPE,
    DIFF_DTYPE_SHAPE
} diff_kind;

static const char *const kind_names[] = {"equal", "only_a", "only_b", "dtype", "shape",
                                         "dtype_shape"};

/* ---- options -------------------------------------------------------------- */

static void free_opts(diff_opts *o)
{
    cli_names_free(&o->names);
}

static int get_options(cli_ctx *ctx, const cli_args *args, diff_opts *o)
{
    memset(o, 0, sizeof *o);
    if (cli_names_get(ctx, args, &o->names) != CLI_OK)
        return CLI_ERROR;
    o->quiet = cli_flag(args, "quiet") > 0;
    o->recursive = cli_flag(args, "recursive") > 0;
    return CLI_OK;
}

/* ---- names ------------------------------------------------------------------ */

static const side *sort_side; /* qsort has no user pointer */

static int cmp_key(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = strcmp(sort_side->key[i], sort_side->key[j]);
    return c ? c : (i > j) - (i < j);
}

static int load_side(cli_ctx *ctx, const diff_opts *o, side *s, int is_a)
{
    s->m = cli_model_open(ctx, s->path, NULL, o->recursive);
    if (!s->m)
        return CLI_ERROR;
    s->n = ts_model_count(s->m);
    s->key = calloc(s->n ? s->n : 1, sizeof *s->key);
    s->order = malloc((s->n ? s->n : 1) * sizeof *s->order);
    if (!s->key || !s->order)
        return cli_error(ctx, s->path, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        if (!(s->key[i] = cli_names_map(&o->names, is_a, ts_model_array_name(s->m, i))))
            return cli_error(ctx, s->path, "out of memory");
        s->order[i] = i;
    }
    sort_side = s;
    if (s->n > 1)
        qsort(s->order, s->n, sizeof *s->order, cmp_key);
    /* A name twice on one side (files of a folder without an index, or two
     * names mapped to one) leaves the comparison ambiguous: the first is
     * compared, and the others are reported. */
    for (size_t k = 1; k < s->n; k++)
        if (strcmp(s->key[s->order[k]], s->key[s->order[k - 1]]) == 0)
            cli_notice(ctx, s->path, "warning: tensor '%s' appears more than once; the first "
                                     "is compared", s->key[s->order[k]]);
    return CLI_OK;
}

static void free_side(side *s)
{
    if (s->key)
        for (size_t i = 0; i < s->n; i++)
            free(s->key[i]);
    free(s->key);
    free(s->order);
    ts_model_close(s->m);
}

/* The first tensor of s named key, or (size_t)-1. */
static size_t find(const side *s, const char *key)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->key[s->order[mid]], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && strcmp(s->key[s->order[lo]], key) == 0 ? s->order[lo] : (size_t)-1;
}

/* Is tensor i the first of its name on its side? */
static int first_of_name(const side *s, size_t i)
{
    return find(s, s->key[i]) == i;
}

/* ---- comparing ----------------------------------------------------------------- */

/* The difference between two tensors of one name. diff --values compares
 * the data here, for pairs that are equal in dtype and shape. */
static diff_kind compare_pair(const ts_array *a, const ts_array *b)
{
    int dt = strcmp(a->dtype_name, b->dtype_name) != 0;
    int sh = !ts_shape_equal(&a->shape, &b->shape);
    return dt && sh ? DIFF_DTYPE_SHAPE : dt ? DIFF_DTYPE : sh ? DIFF_SHAPE : DIFF_EQUAL;
}

static void tensor_text(const ts_array *a, char *buf, size_t cap)
{
    char shape[512];
    ts_shape_format(&a->shape, 0, shape, sizeof shape);
    snprintf(buf, cap, "%s %s", shape, a->dtype_name);
}

static void json_tensor(cli_ctx *ctx, const char *key, const side *s, size_t i)
{
    size_t f;
    const ts_array *a = ts_model_array(s->m, i, &f);
    print_open_object(ctx, key);
    print_string(ctx, PRINT_JSON, "name", NULL, ts_model_array_name(s->m, i));
    print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
    print_dims(ctx, PRINT_JSON, "shape", NULL, ts_shape_dims(&a->shape), ts_shape_ndim(&a->shape));
    print_string(ctx, PRINT_JSON, "file", NULL, ts_model_file_path(s->m, f));
    print_close_object(ctx);
}

static void report(cli_ctx *ctx, cli_table *t, diff_kind k, const char *name, const side *a,
                   size_t ia, const side *b, size_t ib)
{
    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "kind", NULL, kind_names[k]);
        print_string(ctx, PRINT_JSON, "name", NULL, name);
        if (ia != (size_t)-1)
            json_tensor(ctx, "a", a, ia);
        else
            print_null(ctx, PRINT_JSON, "a", NULL);
        if (ib != (size_t)-1)
            json_tensor(ctx, "b", b, ib);
        else
            print_null(ctx, PRINT_JSON, "b", NULL);
        print_close_object(ctx);
        return;
    }
    static const char *const words[] = {"", "only in A", "only in B", "dtype", "shape",
                                        "dtype, shape"};
    char ta[600] = "", tb[600] = "";
    if (ia != (size_t)-1)
        tensor_text(ts_model_array(a->m, ia, NULL), ta, sizeof ta);
    if (ib != (size_t)-1)
        tensor_text(ts_model_array(b->m, ib, NULL), tb, sizeof tb);
    const char *row[4] = {words[k], name, ia != (size_t)-1 ? ta : "-", ib != (size_t)-1 ? tb : "-"};
    cli_table_add(t, row);
}

int cmd_diff(cli_ctx *ctx, const cli_args *args)
{
    diff_opts o;
    if (args->nops != 2)
        return cli_usage(ctx, "expected two operands, A and B, not %d", args->nops);
    if (get_options(ctx, args, &o) != CLI_OK) {
        free_opts(&o);
        return CLI_ERROR;
    }
    side a = {args->ops[0], NULL, NULL, NULL, 0}, b = {args->ops[1], NULL, NULL, NULL, 0};
    int status = load_side(ctx, &o, &a, 1);
    if (status == CLI_OK)
        status = load_side(ctx, &o, &b, 0);
    int64_t count[6] = {0};
    if (status == CLI_OK) {
        cli_table t = {NULL, 0, 0, 4, 0};
        /* A's tensors in A's order, then those only in B in B's order */
        for (size_t i = 0; i < a.n; i++) {
            if (!first_of_name(&a, i))
                continue;
            size_t j = find(&b, a.key[i]);
            diff_kind k = j == (size_t)-1
                              ? DIFF_ONLY_A
                              : compare_pair(ts_model_array(a.m, i, NULL),
                                             ts_model_array(b.m, j, NULL));
            count[k]++;
            if (k != DIFF_EQUAL && !o.quiet)
                report(ctx, &t, k, a.key[i], &a, i, &b, j);
        }
        for (size_t j = 0; j < b.n; j++) {
            if (!first_of_name(&b, j) || find(&a, b.key[j]) != (size_t)-1)
                continue;
            count[DIFF_ONLY_B]++;
            if (!o.quiet)
                report(ctx, &t, DIFF_ONLY_B, b.key[j], &a, (size_t)-1, &b, j);
        }
        int64_t changed = count[DIFF_DTYPE] + count[DIFF_SHAPE] + count[DIFF_DTYPE_SHAPE];
        int64_t different = changed + count[DIFF_ONLY_A] + count[DIFF_ONLY_B];
        if (!o.quiet) {
            cli_table_flush(ctx, &t, "");
            print_open_object(ctx, NULL);
            print_int(ctx, PRINT_ANY, "equal", "%s equal, ", count[DIFF_EQUAL]);
            print_int(ctx, PRINT_ANY, "different", "%s different", different);
            print_text(ctx, " (");
            print_int(ctx, PRINT_ANY, "only_a", "%s only in A, ", count[DIFF_ONLY_A]);
            print_int(ctx, PRINT_ANY, "only_b", "%s only in B, ", count[DIFF_ONLY_B]);
            print_int(ctx, PRINT_ANY, "changed", "%s changed)\n", changed);
            print_close_object(ctx);
        }
        status = different ? CLI_FALSE : CLI_OK;
        /* an incomplete model is an error whatever the comparison says */
        if (ts_model_error_count(a.m) || ts_model_error_count(b.m))
            status = CLI_ERROR;
    }
    free_side(&a);
    free_side(&b);
    free_opts(&o);
    return status;
}
