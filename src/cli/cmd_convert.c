/*
 * cmd_convert.c - tshape convert IN OUT: the arrays of a file or model
 * folder written as safetensors, .npz or a folder of .npy files, through
 * ts_write (atomic, verified, dtypes kept bit for bit). Names are selected
 * with --filter/--exclude (on IN's names) and mapped with --strip-prefix
 * and --rename (names.c, as diff does for side A).
 *
 * SIGINT and SIGTERM only set a flag that the progress callback turns into
 * TS_ERR_CANCELED, so ts_write removes its temporary files; SIGXFSZ is
 * ignored, so a file size limit is the write error EFBIG. Exit 0 written,
 * 2 on any error (nothing is left at OUT then).
 */
#include "cli.h"
#include "model.h"
#include "names.h"

#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const cli_option convert_options[] = {
    CLI_ABOUT("IN: a file of any format info reads (values as stats decodes them) or a\n"
              "model folder or index file; OUT: the file (or folder) to create. The arrays\n"
              "keep their dtypes bit for bit; views and Fortran-order or big-endian data\n"
              "become C-order little-endian copies. OUT is written under a temporary name,\n"
              "verified by reading it back (names, dtypes, shapes, XXH3-64 of the data) and\n"
              "then renamed; on any error nothing is left and the exit status is 2."),
    CLI_CHOICE("to", 't', "FMT",
               "output format (default: OUT's extension, .safetensors or .npz):",
               "safetensors npz npy-dir"),
    CLI_FILTER_OPTIONS,
    CLI_VALUE("strip-prefix", 'p', "PREFIX",
              "remove PREFIX from the names that start with it (repeatable: the\n"
              "first that matches)"),
    CLI_VALUE("rename", 0, "MAPFILE",
              "lines 'IN_NAME OUT_NAME' ('#' comments), after --strip-prefix"),
    CLI_FLAG("force", 'f', "replace OUT when it exists"),
    CLI_CHOICE("cast", 0, "DTYPE",
               "convert floating arrays to DTYPE (float16, bfloat16: round to nearest\n"
               "even), or complex arrays to complex64/complex128:",
               "float16 bfloat16 float32 float64 complex64 complex128"),
    CLI_VALUE("dequantize", 0, "[=DTYPE]",
              "decode GGUF block-quantized arrays to float32 (default), or to\n"
              "float16 with --dequantize=float16"),
    CLI_FLAG("compress", 'z', "npz: deflate the members (np.savez_compressed)"),
    CLI_VALUE("max-shard-size", 0, "SIZE",
              "safetensors: at most SIZE bytes of data per file (5GB, 500MB, 2GiB):\n"
              "STEM-0000K-of-0000N.safetensors and STEM.safetensors.index.json"),
    CLI_FLAG("no-verify", 0, "do not read OUT back to check it"),
    CLI_FLAG("skip-unsupported", 0, "leave out the arrays OUT's format cannot hold (strings,\n"
                                     "quantized, sparse, no shape), each named on standard\n"
                                     "error, instead of writing nothing"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

/* ---- signals and progress ------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* The progress line (stats' form) on a terminal; stops on SIGINT/SIGTERM. */
static int on_progress(void *user, int64_t done, int64_t total)
{
    if (stop_signal)
        return 1;
    cli_progress_report(user, done, total);
    return 0;
}

/* ---- options ----------------------------------------------------------------- */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* 1 when OUT is an existing folder (convert writes model.safetensors in
 * it, as save_pretrained does). */
static int is_folder(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int get_format(cli_ctx *ctx, const cli_args *args, const char *out, ts_write_format *f)
{
    const char *to;
    if (cli_opt_choice(ctx, args, "to", &to) != CLI_OK)
        return CLI_ERROR;
    if (to) {
        *f = strcmp(to, "safetensors") == 0 ? TS_WRITE_SAFETENSORS
             : strcmp(to, "npz") == 0       ? TS_WRITE_NPZ
                                            : TS_WRITE_NPY_DIR;
    } else if (is_folder(out)) {
        *f = TS_WRITE_SAFETENSORS;
    } else if (ends_with(out, "/")) {
        return cli_error(ctx, out, "no such folder (convert writes model.safetensors into an "
                                   "existing folder; it does not create one)");
    } else if (ends_with(out, ".safetensors")) {
        *f = TS_WRITE_SAFETENSORS;
    } else if (ends_with(out, ".npz")) {
        *f = TS_WRITE_NPZ;
    } else {
        return cli_usage(ctx, "cannot tell the output format from '%s': name it .safetensors "
                              "or .npz, or give --to safetensors|npz|npy-dir", out);
    }
    return CLI_OK;
}

static int get_write_options(cli_ctx *ctx, const cli_args *args, const char *out,
                             ts_write_options *o)
{
    const char *v;
    ts_error err;
    if (get_format(ctx, args, out, &o->format) != CLI_OK)
        return CLI_ERROR;
    o->overwrite = cli_flag(args, "force") > 0;
    o->compress = cli_flag(args, "compress") > 0;
    o->no_verify = cli_flag(args, "no-verify") > 0;
    if (o->compress && o->format != TS_WRITE_NPZ)
        return cli_usage(ctx, "--compress is for npz output");
    if ((v = cli_opt(args, "cast"))) {
        ts_dtype dt;
        if (ts_dtype_from_string(v, &dt, &err) != TS_OK)
            return cli_usage(ctx, "--cast: %s", err.message);
        if (dt != TS_DTYPE_FLOAT16 && dt != TS_DTYPE_BFLOAT16 && dt != TS_DTYPE_FLOAT32 &&
            dt != TS_DTYPE_FLOAT64 && dt != TS_DTYPE_COMPLEX64 && dt != TS_DTYPE_COMPLEX128)
            return cli_usage(ctx, "--cast %s: expected float16, bfloat16, float32, float64, "
                                  "complex64 or complex128", v);
        o->cast = 1;
        o->cast_dtype = dt;
    }
    if ((v = cli_opt(args, "dequantize"))) {
        ts_dtype dt = TS_DTYPE_FLOAT32;
        if (*v && ts_dtype_from_string(v, &dt, &err) != TS_OK)
            return cli_usage(ctx, "--dequantize: %s", err.message);
        if (dt != TS_DTYPE_FLOAT32 && dt != TS_DTYPE_FLOAT16)
            return cli_usage(ctx, "--dequantize=%s: expected float32 or float16", v);
        o->dequantize = 1;
        o->dequantize_dtype = dt;
    }
    if ((v = cli_opt(args, "max-shard-size"))) {
        if (o->format != TS_WRITE_SAFETENSORS)
            return cli_usage(ctx, "--max-shard-size is for safetensors output");
        if (cli_opt_size(ctx, args, "max-shard-size", &o->max_shard_size) != CLI_OK)
            return CLI_ERROR;
        if (o->max_shard_size < 1000000) /* "1" for "1GB": one file per tensor */
            cli_notice(ctx, NULL, "warning: --max-shard-size %s is %lld byte%s, below 1 MB: "
                       "most tensors will get a file of their own (units: 5GB, 500MB, 2GiB)",
                       v, (long long)o->max_shard_size, o->max_shard_size == 1 ? "" : "s");
    }
    return CLI_OK;
}

/* ---- into a folder: model.safetensors and the small files beside it ------------- */

/* Files of IN's folder larger than this are not copied (named instead):
 * tokenizer files reach tens of MiB, ONNX external data is not small. */
#define COPY_MAX ((int64_t)64 << 20)

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    while (a > 1 && dir[a - 1] == '/')
        a--;
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

static const char *last_part(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/*
 * The files of IN's model folder that hold no tensors (ts_model_other_file:
 * config.json, tokenizer files, README.md) to copy into the folder dir:
 * those of at most COPY_MAX bytes that are not there already (the same
 * file: a model converted in its own folder). Larger ones are named in a
 * notice. *list is malloc'd (the paths are the model's).
 */
static int files_to_copy(cli_ctx *ctx, const char *in, const ts_model *m, const char *dir,
                         const char ***list, size_t *n)
{
    size_t k = ts_model_other_file_count(m);
    *list = calloc(k ? k : 1, sizeof **list);
    *n = 0;
    if (!*list)
        return cli_error(ctx, NULL, "out of memory");
    for (size_t i = 0; i < k; i++) {
        const char *src = ts_model_other_file(m, i);
        struct stat ss, sd;
        if (stat(src, &ss) != 0 || !S_ISREG(ss.st_mode))
            continue;
        char *target = join_path(dir, last_part(src));
        int there = target && stat(target, &sd) == 0 && sd.st_dev == ss.st_dev &&
                    sd.st_ino == ss.st_ino;
        free(target);
        if (there)
            continue;
        if ((int64_t)ss.st_size > COPY_MAX) {
            char h[32];
            cli_notice(ctx, in, "not copied: %s (%s; files above 64 MiB are not small files "
                                "of a model folder)", last_part(src),
                       cli_human_bytes((int64_t)ss.st_size, h, sizeof h));
            continue;
        }
        (*list)[(*n)++] = src;
    }
    return CLI_OK;
}

/* ---- IN is never OUT ------------------------------------------------------------ */

static int same_file(const struct stat *a, const char *path)
{
    struct stat b;
    return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* The index of sharded output OUT: STEM.safetensors.index.json beside it
 * (malloc'd), as ts_write names it. */
static char *index_path(const char *out)
{
    size_t n = strlen(out);
    char *p = malloc(n + 32);
    if (p) {
        memcpy(p, out, n + 1);
        if (ends_with(p, ".safetensors"))
            p[n - 12] = '\0';
        strcat(p, ".safetensors.index.json");
    }
    return p;
}

/* An error when OUT (or, for shards, the index beside it) is IN, IN's
 * index or one of its files. */
static int check_not_input(cli_ctx *ctx, const char *in, const ts_model *m, const char *out,
                           int64_t shards)
{
    char *paths[2] = {NULL, NULL};
    paths[0] = (char *)(uintptr_t)out;
    if (shards && !(paths[1] = index_path(out)))
        return cli_error(ctx, NULL, "out of memory");
    int status = CLI_OK;
    for (int k = 0; k < 2 && status == CLI_OK && paths[k]; k++) {
        struct stat so;
        if (stat(paths[k], &so) != 0)
            continue;
        int same = same_file(&so, in) ||
                   (ts_model_index(m) && same_file(&so, ts_model_index(m)));
        for (size_t i = 0; !same && i < ts_model_file_count(m); i++)
            same = same_file(&so, ts_model_file_path(m, i));
        if (same)
            status = cli_error(ctx, paths[k], "is the input %s: IN and OUT must differ", in);
    }
    /* shards: no file of IN may be one that could be written,
     * STEM-?????-of-?????.safetensors in OUT's folder */
    if (shards && status == CLI_OK) {
        paths[1][strlen(paths[1]) - strlen(".safetensors.index.json")] = '\0';
        const char *slash = strrchr(paths[1], '/');
        const char *stem = slash ? slash + 1 : paths[1];
        char dir[4096], pattern[512];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - paths[1]) + 1 : 2,
                 slash ? paths[1] : "./");
        snprintf(pattern, sizeof pattern, "%s-[0-9][0-9][0-9][0-9][0-9]-of-"
                 "[0-9][0-9][0-9][0-9][0-9].safetensors", stem);
        struct stat so;
        for (size_t i = 0; status == CLI_OK && i < ts_model_file_count(m); i++) {
            const char *fp = ts_model_file_path(m, i), *fs = strrchr(fp, '/');
            char fdir[4096];
            snprintf(fdir, sizeof fdir, "%.*s", fs ? (int)(fs - fp) + 1 : 2, fs ? fp : "./");
            if (fnmatch(pattern, fs ? fs + 1 : fp, 0) == 0 && stat(dir, &so) == 0 &&
                same_file(&so, fdir))
                status = cli_error(ctx, out, "its shards would replace %s, a file of the "
                                   "input: IN and OUT must differ", fp);
        }
    }
    free(paths[1]);
    return status;
}

/* ---- report ------------------------------------------------------------------- */

typedef struct sel {
    size_t index;                /* in the model */
    size_t file;
    const ts_array *a;
    const char *out_name;        /* after --strip-prefix and --rename */
    int view;                    /* a view of a storage (storage_key; not
                                    ONNX external data, TF.js weights or
                                    TF checkpoint data, whose storage_key
                                    names a side file) */
} sel;

static int cmp_storage(const void *x, const void *y)
{
    const sel *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    int c = strcmp(a->a->storage_key, b->a->storage_key);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* Tensors that are views of one storage: each is written as its own copy.
 * Text: one notice per storage on stderr; JSON: the "shared" array. Names
 * are those written. */
static void report_shared(cli_ctx *ctx, const char *in, const sel *s, size_t n)
{
    sel *v = malloc((n ? n : 1) * sizeof *v);
    size_t nv = 0;
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        if (s[i].view)
            v[nv++] = s[i];
    qsort(v, nv, sizeof *v, cmp_storage);
    if (ctx->json)
        print_open_array(ctx, "shared");
    for (size_t i = 0; i < nv;) {
        size_t k = i + 1;
        while (k < nv && v[k].file == v[i].file &&
               strcmp(v[k].a->storage_key, v[i].a->storage_key) == 0)
            k++;
        if (k - i > 1) {
            if (ctx->json) {
                print_open_object(ctx, NULL);
                print_string(ctx, PRINT_JSON, "storage", NULL, v[i].a->storage_key);
                print_open_array(ctx, "tensors");
                for (size_t t = i; t < k; t++)
                    print_string(ctx, PRINT_JSON, NULL, NULL, v[t].out_name);
                print_close_array(ctx);
                print_close_object(ctx);
            } else {
                char names[512], q[160];
                size_t len = 0;
                names[0] = '\0';
                for (size_t t = i; t < k && len + 8 < sizeof names; t++) {
                    const char *nm = v[t].out_name;
                    int w = snprintf(names + len, sizeof names - len, "%s'%s'", t > i ? ", " : "",
                                     cli_quote(nm, strlen(nm), q, sizeof q));
                    len = w > 0 && (size_t)w < sizeof names - len ? len + (size_t)w
                                                                 : sizeof names - 1;
                }
                cli_notice(ctx, in, "%zu tensors share storage '%s' (%s): each is written "
                                    "as its own copy", k - i,
                           cli_quote(v[i].a->storage_key, strlen(v[i].a->storage_key), q,
                                     sizeof q), names);
            }
        }
        i = k;
    }
    if (ctx->json)
        print_close_array(ctx);
    free(v);
}

static const char *format_word(ts_write_format f)
{
    return f == TS_WRITE_SAFETENSORS ? "safetensors" : f == TS_WRITE_NPZ ? "npz" : "npy-dir";
}

/* The base name of a path, for __metadata__ (no folders of the user's). */
static const char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *b = path;
    for (size_t i = 0; i < n; i++)
        if (path[i] == '/' && i + 1 < n)
            b = path + i + 1;
    return b;
}

/* The name of tensor i: the model's, but an array without a name in a
 * file of several is "arr_K" (K its position in the file), as np.savez
 * names positional arrays, so the names stay unique. */
static const char *unnamed_name(const ts_model *m, size_t i, char *buf, size_t cap)
{
    size_t fi;
    const ts_array *a = ts_model_array(m, i, &fi);
    const ts_file *f = ts_model_file(m, fi);
    if (a->name[0] || ts_file_count(f) < 2)
        return ts_model_array_name(m, i);
    size_t k = 0;
    while (k < ts_file_count(f) && ts_file_array(f, k) != a)
        k++;
    snprintf(buf, cap, "arr_%zu", k);
    return buf;
}

/* ---- what cannot be written ---------------------------------------------------- */

/* One tensor that cannot be written: its name and why (the library's
 * message without its "array 'NAME': " prefix). */
typedef struct unwritable {
    char *name, *why;
} unwritable;

/* "'a', 'b' and 3 more: WHY; 'c': WHY2" for the tensors v[0..n), grouped by
 * reason in the order met, at most 4 names per reason, into buf; the
 * reasons that do not fit end it as "; and N more tensors". */
static void unwritable_list(const unwritable *v, size_t n, char *buf, size_t cap)
{
    size_t len = 0, listed = 0;
    unsigned char *done = calloc(n ? n : 1, 1);
    buf[0] = '\0';
    for (size_t i = 0; done && i < n; i++) {
        if (done[i])
            continue;
        if (len + 2 * strlen(v[i].why) + 64 > cap) { /* room for "; and N more tensors" */
            snprintf(buf + len, cap - len, "; and %zu more tensor%s", n - listed,
                     n - listed == 1 ? "" : "s");
            break;
        }
        size_t shown = 0, same = 0;
        for (size_t k = i; k < n; k++) {
            if (done[k] || strcmp(v[k].why, v[i].why) != 0)
                continue;
            done[k] = 1;
            same++;
            listed++;
            if (shown < 4 && len + 64 < cap) {
                char q[160];
                len += (size_t)snprintf(buf + len, cap - len, "%s'%s'",
                                        shown ? ", " : len ? "; " : "",
                                        cli_quote(v[k].name, strlen(v[k].name), q, sizeof q));
                shown++;
            }
        }
        if (same > shown && len + 32 < cap)
            len += (size_t)snprintf(buf + len, cap - len, " and %zu more", same - shown);
        if (len + 8 < cap) {
            int w = snprintf(buf + len, cap - len, ": %s", v[i].why);
            len = w > 0 && (size_t)w < cap - len ? len + (size_t)w : cap - 1;
        }
    }
    free(done);
}

/*
 * Checks every selected tensor (ts_write_check) before anything is written.
 * Without --skip-unsupported, the tensors that cannot be written are named
 * in one error line (grouped by reason) and nothing is written. With it,
 * those of a dtype or storage the format lacks (TS_ERR_DTYPE,
 * TS_ERR_UNSUPPORTED) are left out, each named in a notice; other problems
 * (bad data, names) stay errors. Returns CLI_OK with t, s and mapped
 * compacted to the tensors to write (the others' mapped names freed).
 */
static int check_writable(cli_ctx *ctx, const char *in, const ts_write_options *o, int skip,
                          ts_write_tensor *t, sel *s, char **mapped, size_t *n)
{
    unwritable *v = NULL;
    size_t bad = 0, kept = 0, skippable = 0, cap = 0;
    int status = CLI_OK;
    for (size_t i = 0; i < *n; i++) {
        ts_error err;
        ts_status st = ts_write_check(&t[i], o, &err);
        if (st == TS_OK) {
            t[kept] = t[i];
            s[kept] = s[i];
            mapped[kept++] = mapped[i];
            continue;
        }
        int lacks = st == TS_ERR_DTYPE || st == TS_ERR_UNSUPPORTED;
        if (skip && lacks) {
            cli_notice(ctx, in, "skipped: %s", err.message);
            free(mapped[i]);
            continue;
        }
        skippable += (size_t)lacks;
        if (bad == cap) {
            cap = cap ? cap * 2 : 16;
            unwritable *p = realloc(v, cap * sizeof *v);
            if (!p) {
                status = cli_error(ctx, NULL, "out of memory");
                break;
            }
            v = p;
        }
        const char *why = strstr(err.message, "': ");
        why = strncmp(err.message, "array '", 7) == 0 && why ? why + 3 : err.message;
        v[bad].name = mapped[i]; /* owned by v now */
        v[bad].why = strdup(why);
        bad++;
    }
    *n = kept;
    if (bad > 0 && status == CLI_OK) {
        char list[900];
        unwritable_list(v, bad, list, sizeof list);
        status = cli_error(ctx, in, "%zu tensor%s cannot be written as %s: %s; nothing "
                           "written%s", bad, bad == 1 ? "" : "s",
                           o->format == TS_WRITE_SAFETENSORS ? "safetensors"
                           : o->format == TS_WRITE_NPZ     ? "npz" : "npy files", list,
                           skippable == 0 || kept == 0 ? ""
                           : skippable == bad ? " (--skip-unsupported writes the others)"
                                              : " (--skip-unsupported leaves out those of a "
                                                "dtype or storage the format lacks)");
    }
    for (size_t i = 0; i < bad; i++) {
        free(v[i].name);
        free(v[i].why);
    }
    free(v);
    return status;
}

/* ---- the command --------------------------------------------------------------- */

int cmd_convert(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops != 2)
        return cli_usage(ctx, "expected two operands, IN and OUT, not %d", args->nops);
    const char *in = args->ops[0], *out = args->ops[1], *folder = NULL;
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    if (get_write_options(ctx, args, out, &o) != CLI_OK)
        return CLI_ERROR;
    /* OUT an existing folder: FOLDER/model.safetensors (shards and index
     * with --max-shard-size) or model.npz, as save_pretrained writes */
    char *into = NULL;
    if (o.format != TS_WRITE_NPY_DIR && is_folder(out)) {
        folder = out;
        into = join_path(out, o.format == TS_WRITE_NPZ ? "model.npz" : "model.safetensors");
        if (!into)
            return cli_error(ctx, NULL, "out of memory");
        out = into;
    }
    cli_names names;
    cli_filter filter;
    cli_filter_init(&filter, args);
    if (cli_names_get_one_side(ctx, args, &names) != CLI_OK) {
        cli_names_free(&names);
        return CLI_ERROR;
    }
    ts_open_options oo;
    if (cli_no_stdin(ctx, in) != CLI_OK || !cli_open_options(ctx, args, &oo)) {
        cli_names_free(&names);
        return CLI_ERROR;
    }
    ts_model *m = cli_model_open(ctx, in, &oo, 0);
    int status = m ? CLI_OK : CLI_ERROR;
    if (m && ts_model_error_count(m))
        status = cli_error(ctx, in, "the model is incomplete: nothing written");
    if (status == CLI_OK)
        status = check_not_input(ctx, in, m, out, o.max_shard_size);
    const char **copies = NULL;
    size_t ncopies = 0;
    if (status == CLI_OK && folder && cli_is_model_path(in))
        status = files_to_copy(ctx, in, m, folder, &copies, &ncopies);
    o.copy_files = copies;
    o.copy_count = ncopies;
    size_t n = m ? ts_model_count(m) : 0, nsel = 0;
    sel *s = calloc(n ? n : 1, sizeof *s);
    ts_write_tensor *t = calloc(n ? n : 1, sizeof *t);
    char **mapped = calloc(n ? n : 1, sizeof *mapped);
    if (status == CLI_OK && (!s || !t || !mapped))
        status = cli_error(ctx, NULL, "out of memory");
    for (size_t i = 0; status == CLI_OK && i < n; i++) {
        char positional[64];
        const char *name = unnamed_name(m, i, positional, sizeof positional);
        if (!cli_filter_match(&filter, name))
            continue;
        s[nsel].index = i;
        s[nsel].a = ts_model_array(m, i, &s[nsel].file);
        if (!(mapped[nsel] = cli_names_map(&names, 1, name))) {
            status = cli_error(ctx, NULL, "out of memory");
            break;
        }
        t[nsel].name = s[nsel].out_name = mapped[nsel];
        t[nsel].file = ts_model_file(m, s[nsel].file);
        /* a storage_key names a side file there, not a storage viewed */
        s[nsel].view = s[nsel].a->storage_key &&
                       !ts_format_info_of(ts_file_format(t[nsel].file))->side_files;
        t[nsel].array = s[nsel].a;
        nsel++;
    }
    size_t selected = nsel;
    if (status == CLI_OK && nsel > 0)
        status = check_writable(ctx, in, &o, cli_flag(args, "skip-unsupported") > 0, t, s,
                                mapped, &nsel);
    if (status == CLI_OK && nsel == 0)
        status = cli_error(ctx, in, "no arrays to write%s",
                           selected > 0                      ? " (all skipped)"
                           : filter.nfilter || filter.nexclude ? " (all filtered out)"
                                                               : "");
    if (status == CLI_OK) {
        cli_progress progress;
        cli_progress_init(&progress, "convert");
        cli_progress_start(&progress, out, NULL);
        if (ts_model_file_count(m) > 0)
            o.source_format = ts_format_name(ts_file_format(ts_model_file(m, 0)));
        o.source_file = base_name(in);
        o.progress = on_progress;
        o.progress_ctx = &progress;
        struct sigaction sa, old_int, old_term, old_xfsz;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_handler = on_signal;
        stop_signal = 0;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        sa.sa_handler = SIG_IGN;
        sigaction(SIGXFSZ, &sa, &old_xfsz);
        ts_write_result res;
        ts_error err;
        ts_status st = ts_write(out, t, nsel, &o, &res, &err);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGXFSZ, &old_xfsz, NULL);
        cli_progress_clear(&progress);
        if (st == TS_ERR_CANCELED && stop_signal) {
            status = cli_error(ctx, out, "interrupted by %s: nothing written",
                               stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        } else if (st != TS_OK) {
            status = cli_error(ctx, out, "%s; nothing written", err.message);
        } else {
            char human[32];
            print_open_object(ctx, NULL);
            print_string(ctx, PRINT_ANY, "wrote", "wrote %s: ", out);
            print_string(ctx, PRINT_JSON, "to", NULL, format_word(o.format));
            print_string(ctx, PRINT_JSON, "source", NULL, in);
            print_int(ctx, PRINT_ANY, "tensors", res.tensors == 1 ? "%s tensor, "
                                                                  : "%s tensors, ",
                      (int64_t)res.tensors);
            print_int(ctx, PRINT_ANY, "bytes", "%s bytes", res.data_bytes);
            if (!ctx->json)
                out_printf(ctx, " (%s)", cli_human_bytes(res.data_bytes, human, sizeof human));
            int sharded = o.max_shard_size > 0 && res.files > 1;
            print_int(ctx, PRINT_JSON, "files", NULL, (int64_t)res.files);
            if (sharded && !ctx->json)
                out_printf(ctx, " in %zu shards + index", res.files - 1);
            else if (!ctx->json)
                out_printf(ctx, " in %zu file%s", res.files, res.files == 1 ? "" : "s");
            char *index = sharded ? index_path(out) : NULL;
            print_string(ctx, PRINT_JSON, "index", NULL, index);
            free(index);
            print_int(ctx, PRINT_JSON, "file_bytes", NULL, res.file_bytes);
            print_bool(ctx, PRINT_JSON, "verified", NULL, !o.no_verify);
            if (!ctx->json)
                print_text(ctx, o.no_verify ? ", not verified" : ", verified");
            if (!ctx->json && ncopies > 0)
                out_printf(ctx, "; copied %zu file%s", ncopies, ncopies == 1 ? "" : "s");
            print_open_array(ctx, "copied");
            for (size_t i = 0; i < ncopies; i++)
                print_string(ctx, PRINT_ANY, NULL, i ? ", %s" : " (%s", last_part(copies[i]));
            print_close_array(ctx);
            if (!ctx->json)
                print_text(ctx, ncopies ? ")\n" : "\n");
            report_shared(ctx, in, s, nsel);
            print_close_object(ctx);
        }
    }
    for (size_t i = 0; mapped && i < nsel; i++)
        free(mapped[i]);
    free(mapped);
    free(copies);
    free(into);
    free(t);
    free(s);
    ts_model_close(m);
    cli_names_free(&names);
    return status;
}
