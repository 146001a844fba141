/*
 * verify.c - ts_verify_path: is a checkpoint complete and consistent? The
 * header checks (include/tshape.h lists them): the model's issues
 * (ts_model_open) as problems of a class, each file's length against the
 * end of what its headers place (ts__file_extent), Git LFS pointers and
 * empty files where tensor files belong, huggingface_hub's partial
 * downloads, shards of a numbered series that are absent, and the index's
 * metadata.total_size. The deep pass reads the data (src/values/deep.c).
 */
/* d_type and DT_DIR of struct dirent (beyond _POSIX_C_SOURCE) */
#define _DEFAULT_SOURCE
#include "verify.h"
#include "model_meta.h"
#include "../remote/remote.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Size of the first version of ts_verify_options (up to progress_ctx). */
#define OPTIONS_V1_SIZE (offsetof(ts_verify_options, progress_ctx) + sizeof(void *))

/* The most partial files named, and the folder depth searched for them. */
#define MAX_PARTIAL_DEPTH 8

/* A problem and the strings it owns (the public struct's are const). */
typedef struct problem {
    ts_verify_problem pub;
    ts__finding own;
} problem;

struct ts_verify {
    problem *v;
    size_t n, cap, errors;
    ts_verify_class verdict;
    ts_verify_totals totals;
};

/* ---- names ---------------------------------------------------------------- */

static const char *const class_names[TS_VERIFY_CLASS_COUNT] = {
    "ok", "inconsistent", "corrupt", "incomplete", "unreadable"};
static const char *const class_texts[TS_VERIFY_CLASS_COUNT] = {
    "complete and consistent", "inconsistent checkpoint", "corrupt file",
    "incomplete download", "unreadable"};
static const char *const check_names[TS_VERIFY_CHECK_MAX + 1] = {
    NULL, "missing", "short", "empty", "lfs_pointer", "partial", "long", "invalid", "crc",
    "data", "index_extra", "unindexed", "duplicate", "moved", "total_size", "unreadable",
    "extra_file", "nonfinite", "note"};

const char *ts_verify_class_name(ts_verify_class c)
{
    return (unsigned)c < TS_VERIFY_CLASS_COUNT ? class_names[c] : "unknown";
}

const char *ts_verify_class_text(ts_verify_class c)
{
    return (unsigned)c < TS_VERIFY_CLASS_COUNT ? class_texts[c] : "unknown";
}

const char *ts_verify_check_name(ts_verify_check c)
{
    return c >= 1 && c <= TS_VERIFY_CHECK_MAX ? check_names[c] : "unknown";
}

/* ---- the result ----------------------------------------------------------- */

ts_status ts__verify_add(ts_verify *v, ts_verify_check check, ts_verify_class cls,
                         const char *path, const char *name, int64_t expected, int64_t actual,
                         ts_error *err, const char *fmt, ...)
{
    problem *grown = ts__grow(v->v, &v->cap, v->n, sizeof *grown, 16, err);
    if (!grown)
        return TS_ERR_NOMEM;
    v->v = grown;
    problem *p = &grown[v->n];
    va_list ap;
    va_start(ap, fmt);
    ts_status st = ts__finding_set(&p->own, path, name, err, fmt, ap);
    va_end(ap);
    if (st)
        return st;
    p->pub = (ts_verify_problem){check, cls, p->own.path, p->own.name, p->own.message, expected,
                                 actual};
    v->n++;
    if (cls != TS_VERIFY_OK) {
        v->errors++;
        if (cls > v->verdict)
            v->verdict = cls;
    }
    return TS_OK;
}

ts_verify_totals *ts__verify_totals(ts_verify *v)
{
    return &v->totals;
}

void ts_verify_free(ts_verify *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++)
        ts__finding_free(&v->v[i].own);
    free(v->v);
    free(v);
}

ts_verify_class ts_verify_verdict(const ts_verify *v)
{
    return v ? v->verdict : TS_VERIFY_OK;
}

size_t ts_verify_problem_count(const ts_verify *v)
{
    return v ? v->n : 0;
}

size_t ts_verify_error_count(const ts_verify *v)
{
    return v ? v->errors : 0;
}

const ts_verify_problem *ts_verify_problem_at(const ts_verify *v, size_t i)
{
    return v && i < v->n ? &v->v[i].pub : NULL;
}

const ts_verify_totals *ts_verify_totals_of(const ts_verify *v)
{
    return v ? &v->totals : NULL;
}

/* ---- a file that did not open --------------------------------------------------- */

/* The Git LFS pointer format (git-lfs docs/spec.md): "version
 * https://git-lfs.github.com/spec/v1" first, "size N" among the lines. */
static const char lfs_version[] = "version https://git-lfs.github.com/spec/v1\n";

/* What a local file that is not a tensor file is, from its first bytes:
 * TS_VERIFY_EMPTY, TS_VERIFY_LFS_POINTER (*lfs_size the size it names, or
 * -1), or 0 (neither); *size its size (-1 when it cannot be read). */
static ts_verify_check what_file(const char *path, int64_t *size, int64_t *lfs_size)
{
    *size = -1;
    *lfs_size = -1;
    if (ts__is_url(path))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0)
        return 0;
    char head[512];
    ssize_t k = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        *size = (int64_t)sb.st_size;
        k = read(fd, head, sizeof head - 1);
    }
    close(fd);
    if (*size == 0)
        return TS_VERIFY_EMPTY;
    if (k < (ssize_t)sizeof lfs_version - 1 ||
        memcmp(head, lfs_version, sizeof lfs_version - 1) != 0)
        return 0;
    head[k] = '\0';
    const char *s = strstr(head, "\nsize ");
    if (s) {
        char *end;
        errno = 0;
        long long n = strtoll(s + 6, &end, 10);
        if (errno == 0 && n >= 0 && end != s + 6 && (*end == '\n' || *end == '\0'))
            *lfs_size = n;
    }
    return TS_VERIFY_LFS_POINTER;
}

/* A problem for the file at path that a reader refused with status st and
 * message why: an empty file or an LFS pointer first (their readers only
 * say "not a ... file"), then by the status. */
static ts_status file_problem(ts_verify *v, const char *path, ts_status st, const char *why,
                              ts_error *err)
{
    int64_t size, lfs;
    ts_verify_check c = what_file(path, &size, &lfs);
    if (c == TS_VERIFY_EMPTY)
        return ts__verify_add(v, c, TS_VERIFY_INCOMPLETE, path, NULL, -1, 0, err,
                              "'%s' is empty (0 bytes): its download did not start or did not "
                              "write a byte", path);
    if (c == TS_VERIFY_LFS_POINTER) {
        char named[64] = "";
        if (lfs >= 0)
            snprintf(named, sizeof named, " of %lld bytes", (long long)lfs);
        return ts__verify_add(v, c, TS_VERIFY_INCOMPLETE, path, NULL, lfs, size, err,
                              "'%s' is a Git LFS pointer (%lld bytes) to a file%s, not the "
                              "file: the repository was cloned without git-lfs (git lfs pull "
                              "fetches it)", path, (long long)size, named);
    }
    switch (st) {
    case TS_ERR_TRUNCATED:
        return ts__verify_add(v, TS_VERIFY_SHORT, TS_VERIFY_INCOMPLETE, path, NULL, -1, size,
                              err, "'%s' is shorter than its header says: %s", path, why);
    case TS_ERR_IO:
    case TS_ERR_LIMIT:
    case TS_ERR_UNSUPPORTED:
    case TS_ERR_DTYPE:
        return ts__verify_add(v, TS_VERIFY_UNREADABLE_FILE, TS_VERIFY_UNREADABLE, path, NULL,
                              -1, -1, err, "'%s' cannot be checked: %s", path, why);
    case TS_OK:
    case TS_ERR_NOMEM:
    case TS_ERR_INVALID_ARG:
    case TS_ERR_PARSE:
    case TS_ERR_OVERFLOW:
    case TS_ERR_AXIS:
    case TS_ERR_NDIM:
    case TS_ERR_SIZE:
    case TS_ERR_BROADCAST:
    case TS_ERR_LAYOUT:
    case TS_ERR_FORMAT:
    case TS_ERR_INDEX:
    case TS_ERR_VALUE:
    case TS_ERR_CANCELED:
        break;
    }
    return ts__verify_add(v, TS_VERIFY_INVALID, TS_VERIFY_CORRUPT, path, NULL, -1, -1, err,
                          "'%s' is not a valid file of its format: %s", path, why);
}

/* ---- the model's issues ----------------------------------------------------------- */

static ts_status issue_problem(ts_verify *v, const ts_model_issue *is, ts_error *err)
{
    ts_verify_check c;
    ts_verify_class cls;
    switch (is->kind) {
    case TS_MODEL_SHARD_MISSING:
        c = TS_VERIFY_MISSING;
        cls = TS_VERIFY_INCOMPLETE;
        break;
    case TS_MODEL_FILE_ERROR: {
        /* the reader's message after "'PATH': " */
        const char *why = is->message;
        size_t pl = is->path ? strlen(is->path) : 0;
        if (is->path && strncmp(why, "'", 1) == 0 && strncmp(why + 1, is->path, pl) == 0 &&
            strncmp(why + 1 + pl, "': ", 3) == 0)
            why += pl + 4;
        return file_problem(v, is->path ? is->path : "", is->status, why, err);
    }
    case TS_MODEL_TENSOR_MISSING:
        c = TS_VERIFY_INDEX_EXTRA;
        cls = TS_VERIFY_INCONSISTENT;
        break;
    case TS_MODEL_TENSOR_DUPLICATE:
        c = TS_VERIFY_DUPLICATE;
        cls = TS_VERIFY_INCONSISTENT;
        break;
    case TS_MODEL_TENSOR_MOVED:
        c = TS_VERIFY_MOVED;
        cls = TS_VERIFY_INCONSISTENT;
        break;
    case TS_MODEL_TENSOR_UNLISTED:
        c = TS_VERIFY_UNINDEXED;
        cls = TS_VERIFY_INCONSISTENT;
        break;
    case TS_MODEL_SHARD_UNLISTED:
        c = TS_VERIFY_EXTRA_FILE;
        cls = TS_VERIFY_OK;
        break;
    case TS_MODEL_NAME_REPEATED:
    case TS_MODEL_FOLDERS_SKIPPED:
    case TS_MODEL_FOLDER_REPEATED:
    case TS_MODEL_METADATA_UNREAD:
    default:
        /* the model's other warnings, and errors of kinds added later */
        c = TS_VERIFY_NOTE;
        cls = is->is_error ? TS_VERIFY_INCONSISTENT : TS_VERIFY_OK;
        break;
    }
    return ts__verify_add(v, c, cls, is->path, is->name, -1, -1, err, "%s", is->message);
}

/* ---- files of the folder ---------------------------------------------------------- */

/* 1 when the name ends with an extension of a tensor format of the reader
 * table (".safetensors", ".gguf", ".bin", ...). */
static int tensor_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    size_t n = strlen(dot);
    for (size_t i = 0; i < ts_format_count(); i++) {
        const char *e = ts_format_info_at(i)->extensions;
        while (e && *e) {
            size_t k = strcspn(e, " ");
            if (k == n && memcmp(e, dot, n) == 0)
                return 1;
            e += k + (e[k] == ' ');
        }
    }
    return 0;
}

/* Extensions of formats with a signature of their own: a file named so
 * whose first bytes match no format is not what its name says (".bin",
 * ".pb" or ".model" files of other programs hold other things). */
static int signed_extension(const char *name)
{
    static const char *const ext[] = {".safetensors", ".gguf", ".npy", ".npz",
                                      ".h5", ".hdf5", ".pt", ".pth"};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (strcmp(dot, ext[i]) == 0)
            return 1;
    return 0;
}

/* The files of the folder that hold no tensors but are named like tensor
 * files: empty files and LFS pointers, or files of no format named with an
 * extension of a format with a signature. */
static ts_status other_files(ts_verify *v, const ts_model *m, ts_error *err)
{
    ts_status st = TS_OK;
    for (size_t i = 0; st == TS_OK && i < ts_model_other_file_count(m); i++) {
        const char *p = ts_model_other_file(m, i);
        if (!tensor_extension(p))
            continue;
        int64_t size, lfs;
        ts_verify_check c = what_file(p, &size, &lfs);
        if (c)
            st = file_problem(v, p, TS_ERR_FORMAT, "", err);
        else if (signed_extension(p))
            st = ts__verify_add(v, TS_VERIFY_INVALID, TS_VERIFY_CORRUPT, p, NULL, -1, size, err,
                                "'%s' is named like a tensor file but its first bytes match "
                                "no format", p);
    }
    return st;
}

/* huggingface_hub's partial downloads in a folder it downloads into
 * (huggingface_hub/_local_folder.py: DIR/.cache/huggingface/download/
 * NAME.ETAG.incomplete until the download of NAME completes). */
static ts_status find_partial(ts_verify *v, const char *dir, size_t root, int depth,
                              ts_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return TS_OK; /* none */
    ts_status st = TS_OK;
    struct dirent *e;
    while (st == TS_OK && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        size_t dl = strlen(dir), nl = strlen(n);
        char *p = malloc(dl + nl + 2);
        if (!p) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(p, dl + nl + 2, "%s/%s", dir, n);
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (depth < MAX_PARTIAL_DEPTH)
                st = find_partial(v, p, root, depth + 1, err);
        } else if (nl > 11 && strcmp(n + nl - 11, ".incomplete") == 0) {
            /* the file it becomes: NAME.ETAG.incomplete, below download/ */
            char *target = ts__strdup(p + root);
            if (!target) {
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            } else {
                size_t tl = strlen(target) - 11;
                target[tl] = '\0';
                char *dot = strrchr(target, '.'), *slash = strrchr(target, '/');
                if (dot && (!slash || dot > slash))
                    *dot = '\0';
                st = ts__verify_add(v, TS_VERIFY_PARTIAL, TS_VERIFY_INCOMPLETE, p, NULL, -1,
                                    (int64_t)sb.st_size, err,
                                    "'%s' is a partial download huggingface_hub left (%lld "
                                    "bytes): the download of '%s' did not finish", p,
                                    (long long)sb.st_size, target);
                free(target);
            }
        }
        free(p);
    }
    closedir(d);
    return st;
}

/* A numbered series of shards: NAME-0000K-of-0000N.EXT. */
typedef struct series {
    char *prefix, *suffix;       /* "DIR/model", ".safetensors" */
    long total;
    unsigned char *seen;         /* total + 1 flags */
} series;

/* Parses "PREFIX-KKKKK-of-NNNNN.SUFFIX" (five digits each, as
 * transformers' "{prefix}-{idx:05d}-of-{total:05d}" and gguf-split's
 * "%s-%05d-of-%05d.gguf" write them): 1 with the parts, else 0. */
static int series_name(const char *path, size_t *prefix_len, long *k, long *n,
                       const char **suffix)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *p = base; (p = strstr(p, "-of-")) != NULL; p++) {
        if (p - base < 6 || p[-6] != '-')
            continue;
        const char *a = p - 5, *b = p + 4;
        int ok = 1;
        for (int i = 0; i < 5; i++)
            ok &= a[i] >= '0' && a[i] <= '9' && b[i] >= '0' && b[i] <= '9';
        if (!ok || b[5] != '.')
            continue;
        *prefix_len = (size_t)(a - 1 - path);
        *k = strtol(a, NULL, 10);
        *n = strtol(b, NULL, 10);
        *suffix = b + 5;
        return *k >= 1 && *k <= *n;
    }
    return 0;
}

/* Without an index: the shards of each numbered series among the members
 * are all there. */
static ts_status series_gaps(ts_verify *v, const ts_model *m, ts_error *err)
{
    size_t nf = ts_model_file_count(m), ns = 0;
    series *s = calloc(nf ? nf : 1, sizeof *s);
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    ts_status st = TS_OK;
    for (size_t i = 0; st == TS_OK && i < nf; i++) {
        const char *p = ts_model_file_path(m, i), *suffix;
        size_t pl;
        long k, n;
        if (!series_name(p, &pl, &k, &n, &suffix))
            continue;
        size_t j = 0;
        while (j < ns && !(s[j].total == n && strlen(s[j].prefix) == pl &&
                           strncmp(s[j].prefix, p, pl) == 0 && strcmp(s[j].suffix, suffix) == 0))
            j++;
        if (j == ns) {
            s[j].prefix = malloc(pl + 1);
            s[j].suffix = ts__strdup(suffix);
            s[j].seen = calloc((size_t)n + 1, 1);
            s[j].total = n;
            ns++;
            if (!s[j].prefix || !s[j].suffix || !s[j].seen) {
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                break;
            }
            memcpy(s[j].prefix, p, pl);
            s[j].prefix[pl] = '\0';
        }
        s[j].seen[k] = 1;
    }
    /* the member that failed to open is reported already; a file that is
     * not there at all is missing */
    for (size_t j = 0; st == TS_OK && j < ns; j++)
        for (long k = 1; st == TS_OK && k <= s[j].total; k++) {
            if (s[j].seen[k])
                continue;
            char name[4096];
            snprintf(name, sizeof name, "%s-%05ld-of-%05ld%s", s[j].prefix, k, s[j].total,
                     s[j].suffix);
            struct stat sb;
            if (stat(name, &sb) == 0)
                continue;
            st = ts__verify_add(v, TS_VERIFY_MISSING, TS_VERIFY_INCOMPLETE, name, NULL, -1, -1,
                                err, "shard '%s' is missing: the folder has shard%s of the "
                                "%ld named '%s-NNNNN-of-%05ld%s' but not this one", name,
                                s[j].total > 1 ? "s" : "", s[j].total, s[j].prefix,
                                s[j].total, s[j].suffix);
        }
    for (size_t j = 0; j < ns; j++) {
        free(s[j].prefix);
        free(s[j].suffix);
        free(s[j].seen);
    }
    free(s);
    return st;
}

/* ---- each file's length, the totals ------------------------------------------------ */

static ts_status file_lengths(ts_verify *v, const ts_model *m, ts_error *err)
{
    ts_status st = TS_OK;
    for (size_t i = 0; st == TS_OK && i < ts_model_file_count(m); i++) {
        const ts_file *f = ts_model_file(m, i);
        const char *p = ts_model_file_path(m, i);
        int64_t end = ts__file_extent(f), size = ts_file_nbytes(f);
        v->totals.files++;
        v->totals.file_bytes += size;
        /* a Core ML model whose ML Program weight file is not beside it
         * (coreml.c leaves such blobs without an offset, their note says
         * so): its weights are missing */
        for (size_t k = 0; st == TS_OK && ts_file_format(f) == TS_FORMAT_COREML &&
                           k < ts_file_count(f); k++) {
            const ts_array *a = ts_file_array(f, k);
            if (a->storage_key && a->data_offset < 0) {
                st = ts__verify_add(v, TS_VERIFY_MISSING, TS_VERIFY_INCOMPLETE, p, a->name, -1,
                                    -1, err, "'%s': weight file '%s' is not beside the model "
                                    "('%s' is one of its constants)", p, a->storage_key,
                                    a->name);
                break;
            }
        }
        if (st)
            break;
        if (end < 0) {
            v->totals.length_unchecked++;
            continue;
        }
        v->totals.length_checked++;
        if (size > end)
            st = ts__verify_add(v, TS_VERIFY_LONG, TS_VERIFY_CORRUPT, p, NULL, end, size, err,
                                "'%s' has %lld trailing bytes: its headers account for %lld "
                                "bytes, the file has %lld", p, (long long)(size - end),
                                (long long)end, (long long)size);
    }
    return st;
}

/* A storage shared by views, counted once: the file and its key. */
typedef struct storage_ref {
    size_t file;
    const char *key;
    int64_t nbytes;
} storage_ref;

static int cmp_storage(const void *a, const void *b)
{
    const storage_ref *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The tensors and their bytes; the index's total_size against them. */
static ts_status tensor_totals(ts_verify *v, const ts_model *m, int complete, ts_error *err)
{
    size_t n = ts_model_count(m), ns = 0;
    int64_t sum = 0, unshared = 0;
    storage_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    if (!refs)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t file;
        const ts_array *a = ts_model_array(m, i, &file);
        int64_t nb = a->nbytes > 0 ? a->nbytes : 0;
        sum += nb;
        const ts__data_src *src = ts__file_data_src(ts_model_file(m, file), a);
        if (src && src->has_storage && a->storage_key && src->storage_nbytes > 0)
            refs[ns++] = (storage_ref){file, a->storage_key, src->storage_nbytes};
        else
            unshared += nb;
    }
    /* storages counted once (pytorch.c hands one key pointer per storage) */
    if (ns > 1)
        qsort(refs, ns, sizeof *refs, cmp_storage);
    int64_t storages = unshared;
    for (size_t i = 0; i < ns; i++)
        if (i == 0 || cmp_storage(&refs[i - 1], &refs[i]) != 0)
            storages += refs[i].nbytes;
    free(refs);
    v->totals.tensors = (int64_t)n;
    v->totals.nbytes = sum;
    /* total_size counts the tensors the index names: not those it does
     * not (reported as UNINDEXED) */
    int64_t listed = sum;
    for (size_t i = 0; i < ts_model_issue_count(m); i++) {
        const ts_model_issue *is = ts_model_issue_at(m, i);
        for (size_t k = 0; is->kind == TS_MODEL_TENSOR_UNLISTED && k < n; k++)
            if (strcmp(ts_model_array_name(m, k), is->name) == 0) {
                int64_t nb = ts_model_array(m, k, NULL)->nbytes;
                listed -= nb > 0 ? nb : 0;
                storages -= nb > 0 ? nb : 0;
                break;
            }
    }
    sum = listed;
    int64_t total = ts__model_total_size(m);
    if (total < 0 || !complete || total == sum || total == storages)
        return TS_OK;
    const char *index = ts_model_index(m);
    char shared[96] = "";
    if (storages != sum)
        snprintf(shared, sizeof shared, " (%lld with each shared storage once)",
                 (long long)storages);
    return ts__verify_add(v, TS_VERIFY_TOTAL_SIZE, TS_VERIFY_INCONSISTENT, index, NULL, total,
                          sum, err, "index '%s' says metadata.total_size %lld, but the "
                          "tensors it names hold %lld bytes%s (%+lld)", index,
                          (long long)total, (long long)sum, shared, (long long)(sum - total));
}

/* ---- the API ------------------------------------------------------------------------ */

static ts_status read_options(const ts_verify_options *opts, ts_verify_options *o,
                              ts_error *err)
{
    static const char fn[] = "ts_verify_path";
    ts_verify_options init = TS_VERIFY_OPTIONS_INIT;
    *o = init;
    if (opts) {
        ts_status st = ts__read_struct(err, fn, "opts", "options", opts, OPTIONS_V1_SIZE, o,
                                       sizeof *o, "TS_VERIFY_OPTIONS_INIT", "ts_verify_options");
        if (st)
            return st;
    }
    if (o->deep != 0 && o->deep != 1)
        return ts__bad_arg(err, fn, "opts->deep is %d, not 0 or 1", o->deep);
    if (o->recursive != 0 && o->recursive != 1)
        return ts__bad_arg(err, fn, "opts->recursive is %d, not 0 or 1", o->recursive);
    if (o->nthreads < 0)
        return ts__bad_arg(err, fn, "opts->nthreads is %d, below 0", o->nthreads);
    return TS_OK;
}

/* The checks of a model that opened. */
static ts_status check_model(ts_verify *v, const ts_model *m, const char *path,
                             const ts_verify_options *o, ts_error *err)
{
    ts_status st = TS_OK;
    int complete = 1;
    for (size_t i = 0; st == TS_OK && i < ts_model_issue_count(m); i++) {
        const ts_model_issue *is = ts_model_issue_at(m, i);
        complete &= is->kind != TS_MODEL_SHARD_MISSING && is->kind != TS_MODEL_FILE_ERROR;
        st = issue_problem(v, is, err);
    }
    struct stat sb;
    int folder = !ts__is_url(path) && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (st == TS_OK && folder)
        st = other_files(v, m, err);
    if (st == TS_OK && folder) {
        size_t pl = strlen(path);
        char *dl = malloc(pl + 40);
        if (!dl)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        snprintf(dl, pl + 40, "%s%s.cache/huggingface/download", path,
                 pl && path[pl - 1] == '/' ? "" : "/");
        st = find_partial(v, dl, strlen(dl) + 1, 0, err);
        free(dl);
    }
    if (st == TS_OK && folder && !ts_model_index(m))
        st = series_gaps(v, m, err);
    if (st == TS_OK)
        st = file_lengths(v, m, err);
    if (st == TS_OK)
        st = tensor_totals(v, m, complete, err);
    if (st == TS_OK && o->deep)
        st = ts__verify_deep(v, m, o, err);
    return st;
}

static ts_status verify_path(const char *path, const ts_verify_options *opts, ts_verify **out,
                             ts_error *err);

ts_status ts_verify_path(const char *path, const ts_verify_options *opts, ts_verify **out,
                         ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, path);
    /* a TensorFlow checkpoint prefix: its .index (reader.h) */
    char *index = ts__is_url(path) ? NULL : ts__tf_prefix_index(path);
    ts_status st = verify_path(index ? index : path, opts, out, err);
    free(index);
    return st;
}

static ts_status verify_path(const char *path, const ts_verify_options *opts, ts_verify **out,
                             ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, path);
    ts_verify_options o;
    ts_status st = read_options(opts, &o, err);
    if (st)
        return st;
    ts__ok(err);
    struct stat sb;
    if (!ts__is_url(path) && stat(path, &sb) != 0)
        return ts__error(err, TS_ERR_IO, "cannot open: %s", strerror(errno));
    ts_verify *v = calloc(1, sizeof *v);
    if (!v)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    v->totals.deep = o.deep;
    ts_model_options mo = TS_MODEL_OPTIONS_INIT;
    mo.recursive = o.recursive;
    mo.open = o.open;
    /* the deep pass reads every byte once: local files are mapped (twice
     * the speed of reading them into buffers with pread, bench/verify.sh),
     * their pages dropped from memory as they are read; unless the caller
     * chose otherwise */
    ts_open_options mapped = TS_OPEN_OPTIONS_INIT;
    if (o.deep && (!o.open || o.open->io == TS_IO_AUTO)) {
        if (o.open && o.open->struct_size <= sizeof mapped)
            memcpy(&mapped, o.open, o.open->struct_size);
        if (!o.open || o.open->struct_size <= sizeof mapped) {
            mapped.io = TS_IO_MAP;
            mo.open = &mapped;
        }
    }
    ts_model *m = NULL;
    ts_error e;
    st = ts_model_open(path, &mo, &m, &e);
    if (st == TS_OK) {
        st = check_model(v, m, path, &o, err);
    } else if (!ts_model_path(path) && st != TS_ERR_NOMEM && st != TS_ERR_INVALID_ARG &&
               !(ts__is_url(path) && st == TS_ERR_IO)) {
        /* one file that its reader refuses: a result (a URL that cannot be
         * fetched is an error, as a local path that does not exist) */
        v->totals.files = 1;
        v->totals.file_bytes = ts__is_url(path) ? 0 : (int64_t)sb.st_size;
        st = file_problem(v, path, st, e.message, err);
    } else {
        if (err)
            *err = e;
    }
    ts_model_close(m);
    if (st != TS_OK) {
        ts_verify_free(v);
        return st;
    }
    *out = v;
    return TS_OK;
}
