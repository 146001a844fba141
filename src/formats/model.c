/*
 * model.c - ts_model: a set of files read as one (a folder, or the shards an
 * index file names). Members are opened by a small pool of threads; every
 * result goes to the slot of its member, and the model is assembled
 * afterwards in member order, so the report never depends on the timing.
 */
#define TS_EXPERIMENTAL_API
/* d_type and DT_REG of struct dirent (beyond _POSIX_C_SOURCE): without them
 * every folder entry costs a stat. */
#define _DEFAULT_SOURCE
#include "model_meta.h"
#include "reader.h"
#include "../remote/remote.h"

#include "../core/json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES (1u << 24)
#define MAX_DEPTH 32
#define MAX_THREADS 64
/* Shards of a remote model opened at once (they wait on requests). */
#define REMOTE_THREADS 8
#define NONE ((size_t)-1)

/* Size of the first version of ts_model_options (up to open). */
#define MODEL_OPTIONS_V1_SIZE (offsetof(ts_model_options, open) + sizeof(void *))

/* A file to open: its path, and after the pool has run, the result. */
typedef struct job {
    char *path;
    ts_file *file;
    ts_error *err;          /* when it failed (malloc'd: the jobs of a folder of
                               small files stay small) */
    ts_status status;
    int skipped;            /* not a tensor file (no format detected) */
    int missing;            /* ENOENT */
    int listed;             /* found as a regular file by a folder's listing */
} job;

/* An issue and the strings it owns (the public struct's are const). */
typedef struct issue {
    ts_model_issue pub;
    ts__finding own;
} issue;

typedef struct issue_store {
    issue *v;
    size_t n, cap, errors;
} issue_store;

typedef struct tensor_ref {
    size_t file, array;
    const char *name;       /* the array's name, or the member's stem */
} tensor_ref;

struct ts_model {
    char *index;
    size_t root_len;        /* bytes of the folder's path in member paths */
    char **stems;           /* per member: its path from the folder without
                               the extension, made on demand */
    size_t nfiles;
    ts_file **files;
    char **paths;
    size_t ntensors;
    tensor_ref *tensors;
    issue_store issues;
    ts__model_meta *meta;   /* with metadata asked for (model_meta.c) */
    char **others;          /* the folder's files that hold no tensors */
    size_t nothers, capothers;
    int64_t total_size;     /* the index's metadata.total_size, or -1 */
};

/* ---- small helpers ----------------------------------------------------- */

/* dir + "/" + name, without doubling a '/' at the end of dir. */
static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = a > 0 && dir[a - 1] != '/';
    char *p = malloc(a + (size_t)slash + b + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    if (slash)
        p[a] = '/';
    memcpy(p + a + (size_t)slash, name, b + 1);
    return p;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static ts_status add_issue(issue_store *s, ts_model_issue_kind kind, int is_error,
                           const char *path, const char *name, ts_error *err,
                           const char *fmt, ...) TS__PRINTF(7, 8);

static ts_status add_issue(issue_store *s, ts_model_issue_kind kind, int is_error,
                           const char *path, const char *name, ts_error *err,
                           const char *fmt, ...)
{
    issue *v = ts__grow(s->v, &s->cap, s->n, sizeof *v, 16, err);
    if (!v)
        return TS_ERR_NOMEM;
    s->v = v;
    issue *i = &v[s->n];
    va_list ap;
    va_start(ap, fmt);
    ts_status st = ts__finding_set(&i->own, path, name, err, fmt, ap);
    va_end(ap);
    if (st)
        return st;
    i->pub = (ts_model_issue){kind, is_error, i->own.path, i->own.name, i->own.message, TS_OK};
    s->n++;
    s->errors += (size_t)is_error;
    return TS_OK;
}

/* ---- a hash table of names -------------------------------------------- */

typedef struct name_slot {
    const char *name;
    size_t shard;           /* the index's shard, or NONE */
    size_t owner;           /* position in the file/array list, or NONE */
} name_slot;

typedef struct name_table {
    name_slot *v;
    size_t cap, n;          /* cap: a power of two */
} name_table;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int table_init(name_table *t, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    t->v = calloc(cap, sizeof *t->v);
    t->cap = cap;
    t->n = 0;
    return t->v ? 0 : -1;
}

/* The slot of name: its entry, or the empty slot where it goes. */
static name_slot *table_find(const name_table *t, const char *name)
{
    size_t i = (size_t)hash(name) & (t->cap - 1);
    while (t->v[i].name && strcmp(t->v[i].name, name) != 0)
        i = (i + 1) & (t->cap - 1);
    return &t->v[i];
}

/* The entry of name, added (shard NONE, owner NONE) when new; NULL when
 * out of memory. */
static name_slot *table_get(name_table *t, const char *name)
{
    if (2 * (t->n + 1) > t->cap) {
        name_table g;
        if (table_init(&g, t->cap) != 0)
            return NULL;
        for (size_t i = 0; i < t->cap; i++)
            if (t->v[i].name)
                *table_find(&g, t->v[i].name) = t->v[i];
        g.n = t->n;
        free(t->v);
        *t = g;
    }
    name_slot *s = table_find(t, name);
    if (!s->name) {
        s->name = name;
        s->shard = NONE;
        s->owner = NONE;
        t->n++;
    }
    return s;
}

/* ---- the pool ------------------------------------------------------------ */

typedef struct pool {
    atomic_size_t next;     /* the next job to take */
    size_t n;
    job *jobs;
    const ts_open_options *open;
    int probe;              /* skip files whose format is not detected */
    size_t step;            /* jobs a thread takes at a time */
} pool;

/* A thread's own: its folder descriptor, and its batch reader when the
 * jobs are a folder's listed files (pool.step > 1). */
typedef struct runner {
    ts__dir_fd dir;
    ts__batch *reader;      /* NULL: file by file */
    int tried;              /* ts__batch_new asked */
} runner;
#define RUNNER_INIT {TS__DIR_FD_INIT, NULL, 0}

/* 1 when the file's extension is one of a reader's (.bin, .pt, .pkl, ...):
 * such a file is a model file, and one that cannot be read is an error,
 * never skipped (a pytorch_model.bin that is something else). Not .json,
 * which TF.js claims only by its keys (config.json is no model file). */
static int says_model(const char *path)
{
    const char *base = strrchr(path, '/'), *dot = strrchr(base ? base : path, '.');
    if (!dot || !dot[1])
        return 0;
    size_t n = strlen(dot);
    for (size_t i = 0; i < ts_format_count(); i++) {
        const char *e = ts__format_owns_extensions(i) ? ts_format_info_at(i)->extensions : "";
        while (*e) {
            size_t k = strcspn(e, " ");
            if (k == n && strncasecmp(e, dot, n) == 0)
                return 1;
            e += k + (e[k] == ' ');
        }
    }
    return 0;
}

/* Opens one member; with probe, a file that fails because its first bytes
 * match no reader is skipped (config.json, a tokenizer), not reported,
 * unless its extension says it is a model file. */
static void run_job(const pool *p, job *j, ts__dir_fd *dir, const ts__read_bytes *bytes)
{
    ts_error e;
    j->status = j->listed ? ts__file_open_listed(dir, j->path, p->open, bytes, &j->file, &e)
                          : ts_file_open(j->path, p->open, &j->file, &e);
    if (j->status == TS_OK)
        return;
    if ((j->err = malloc(sizeof *j->err)) != NULL)
        *j->err = e;
    if (ts__is_url(j->path)) {
        j->missing = ts__remote_missing(&e);
        return;
    }
    if (access(j->path, F_OK) != 0 && errno == ENOENT) {
        j->missing = 1;
        return;
    }
    if (p->probe && j->status == TS_ERR_FORMAT && !says_model(j->path)) {
        /* its first bytes: at hand when a batch read it, else read here */
        unsigned char head[64];
        const void *at = head;
        ssize_t k = -1;
        if (bytes) {
            at = bytes->data;
            k = (ssize_t)(bytes->len < sizeof head ? bytes->len : sizeof head);
        } else {
            int fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            if (fd < 0)
                return;
            k = read(fd, head, sizeof head);
            close(fd);
        }
        if (k < 0 || ts_format_detect(at, (size_t)k) == TS_FORMAT_AUTO)
            j->skipped = 1;
    }
}

/* Runs jobs i .. i + p->step - 1 (those there are): a folder's small
 * files read a batch at a time when io_uring can be had (ts__batch_read:
 * one system call for the open, read and close of TS__BATCH_MAX files;
 * the files it did not read whole are opened one by one). */
static void run_step(const pool *p, size_t i, runner *r)
{
    size_t end = p->n - i > p->step ? i + p->step : p->n;
    if (p->step == 1) {
        run_job(p, &p->jobs[i], &r->dir, NULL);
        return;
    }
    if (!r->tried) {
        r->tried = 1;
        r->reader = ts__batch_new();
    }
    char *paths[TS__BATCH_MAX];
    const unsigned char *data[TS__BATCH_MAX];
    long len[TS__BATCH_MAX];
    for (size_t k = 0; k < end - i; k++) {
        paths[k] = p->jobs[i + k].path;
        len[k] = -1;
    }
    if (r->reader)
        ts__batch_read(r->reader, &r->dir, paths, end - i, data, len);
    for (size_t k = 0; k < end - i; k++) {
        ts__read_bytes b = {data[k], len[k] >= 0 ? (size_t)len[k] : 0};
        run_job(p, &p->jobs[i + k], &r->dir, len[k] >= 0 ? &b : NULL);
    }
}

static void runner_end(runner *r)
{
    ts__batch_free(r->reader);
    ts__dir_fd_close(&r->dir);
}

static void *worker(void *arg)
{
    pool *p = arg;
    runner r = RUNNER_INIT;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, p->step);
        if (i >= p->n)
            break;
        run_step(p, i, &r);
    }
    runner_end(&r);
    return NULL;
}

/* Microseconds of a monotonic clock. */
static int64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* The pool starts its threads once the jobs left look worth them: when
 * the time spent so far per job, times the jobs left, reaches
 * POOL_WORTH_US, or once this thread has worked POOL_DELAY_US. A folder
 * of a few small files is read before threads would pay for their start
 * and their memory arenas (about 0.1 ms); 1,000 small files start them
 * after the first (1,000 files: 0.94x the time of starting them after
 * 1 ms, in paired rounds at idle). */
#define POOL_WORTH_US 500
#define POOL_DELAY_US 1000

/* 1 when the jobs left look worth more threads, `done` of n done. */
static int worth(int64_t t0, size_t done, size_t n)
{
    int64_t spent = now_us() - t0;
    return spent >= POOL_DELAY_US ||
           (double)spent * (double)(n - done) >= (double)POOL_WORTH_US * (double)done;
}

/*
 * The first request for the shards of a remote model, from one of them: a
 * safetensors shard's header (8 + its length, where the data starts) twice
 * over, at least 16 KiB, at most 100,000 bytes; 0 (the default) for other
 * formats. A shard with a longer header costs a second request.
 */
static uint64_t first_fetch_like(const ts_file *f)
{
    if (ts_file_format(f) != TS_FORMAT_SAFETENSORS)
        return 0;
    int64_t start = -1;
    for (size_t i = 0; i < ts_file_count(f); i++) {
        int64_t d = ts_file_array(f, i)->data_offset;
        if (d >= 0 && (start < 0 || d < start))
            start = d;
    }
    if (start < 0)
        return 0;
    uint64_t want = (uint64_t)start * 2;
    return want < 16384 ? 16384 : want > 100000 ? 100000 : want;
}

/* Starts threads - 1 workers on p into tid; returns how many started, or
 * -1 when none could (this thread then goes on alone). */
static int start_pool(pthread_t *tid, int threads, pool *p)
{
    int started = 0;
    for (int k = 1; k < threads; k++)
        if (ts__thread_start(&tid[started], worker, p, started) == 0)
            started++;
    return started > 0 ? started : -1;
}

/* Runs every job; with threads > 1 and several jobs, this thread starts
 * and, once the jobs left look worth it (worth), a pool of threads takes
 * the rest with it (falling back to this thread alone when none can be
 * started). A folder's listed files are taken TS__BATCH_MAX at a time
 * (run_step), other jobs one at a time. */
static void run_jobs(job *jobs, size_t n, int threads, const ts_open_options *open, int probe)
{
    pool p;
    atomic_init(&p.next, 0);
    p.n = n;
    p.jobs = jobs;
    p.open = open;
    p.probe = probe;
    int remote = n > 0 && ts__is_url(jobs[0].path);
    p.step = n >= TS__BATCH_FILES && jobs[0].listed && !remote && (!open || open->io == TS_IO_AUTO)
                 ? TS__BATCH_MAX
                 : 1;
    if (threads <= 0) /* remote shards wait on the network, not the CPU */
        threads = remote ? REMOTE_THREADS : ts__cpu_count(4);
    if ((size_t)threads > n)
        threads = (int)n;
    runner r = RUNNER_INIT;
    pthread_t tid[MAX_THREADS];
    int started = threads <= 1 ? -1 : 0; /* -1: this thread alone */
    int64_t t0 = now_us();
    /* Remote shards: the first one alone, then the rest at once, their
     * first requests sized from the first one's header. */
    ts_open_options sized;
    if (remote && started == 0) {
        size_t i = atomic_fetch_add(&p.next, 1);
        run_job(&p, &jobs[i], &r.dir, NULL);
        if (open && open->first_fetch == 0 && jobs[i].file) {
            sized = *open;
            sized.first_fetch = first_fetch_like(jobs[i].file);
            p.open = &sized;
        }
        started = start_pool(tid, threads, &p);
    }
    for (;;) {
        size_t i = atomic_fetch_add(&p.next, p.step);
        if (i >= p.n)
            break;
        run_step(&p, i, &r);
        /* (the clock read after each of the first 16 jobs, then every 8th:
         * a small file takes a few microseconds) */
        size_t done = i + p.step;
        if (started == 0 && (i < 16 || (done & 7) == 0) && done + 2 <= p.n &&
            worth(t0, done, p.n)) {
            started = start_pool(tid, threads, &p); /* this thread is one of them */
        }
    }
    runner_end(&r);
    for (int k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
}

/* ---- listing a folder ---------------------------------------------------- */

typedef struct list {
    char **v;
    size_t n, cap;
    char *text;             /* when not NULL, the block that holds every v[i]
                               (a folder's listing), else each is malloc'd */
} list;

static void list_free(list *l)
{
    for (size_t i = 0; !l->text && i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->text);
    l->v = NULL;
    l->text = NULL;
    l->n = l->cap = 0;
}

static ts_status list_add(list *l, char *s, ts_error *err)
{
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (l->n >= MAX_FILES) {
        free(s);
        return ts__error(err, TS_ERR_LIMIT, "more than %u files", MAX_FILES);
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **p = realloc(l->v, cap * sizeof *p);
        if (!p) {
            free(s);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return TS_OK;
}

/* Zarr's metadata files (zarr.c): an array's, or a group's. */
static int zarr_marker(const char *name)
{
    return strcmp(name, ".zarray") == 0 || strcmp(name, ".zgroup") == 0 ||
           strcmp(name, "zarr.json") == 0;
}

/* A name to sort: its first 8 bytes as a big-endian number (0 past its
 * end), so that most comparisons are one of integers. */
typedef struct sort_key {
    uint64_t head;
    char *s;
} sort_key;

/* As strcmp of the names. */
static int cmp_key(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->head != y->head)
        return x->head < y->head ? -1 : 1;
    /* equal first 8 bytes: equal names when they end within them */
    return (x->head & 0xff) ? strcmp(x->s + 8, y->s + 8) : 0;
}

/* Sorts v[0..n) by the names at v[i] + skip, as strcmp orders them;
 * -1 when out of memory (v left as it was). */
static int sort_names(char **v, size_t n, size_t skip)
{
    sort_key *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char *name = v[i] + skip;
        const unsigned char *s = (const unsigned char *)name;
        uint64_t h = 0;
        size_t j = 0;
        for (; j < 8 && s[j]; j++)
            h = h << 8 | s[j];
        if (j > 0 && j < 8)
            h <<= 8 * (8 - j);
        k[i] = (sort_key){h, name};
    }
    qsort(k, n, sizeof *k, cmp_key);
    for (size_t i = 0; i < n; i++)
        v[i] = k[i].s - skip;
    free(k);
    return 0;
}

/* The names in dir (not starting with '.', but for Zarr's .zarray and
 * .zgroup), sorted, into the empty list `names`, all in one block of
 * text (names->text). With kinds, each name is preceded by one byte: 'f' a
 * regular file, 'd' a folder, '?' unknown (a link, or a file system
 * without d_type: stat tells). */
static ts_status read_dir_kinds(const char *dir, list *names, int kinds, ts_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return ts__error(err, TS_ERR_IO, "cannot open folder '%s': %s", dir, strerror(errno));
    ts_status st = TS_OK;
    struct dirent *e;
    /* first the offsets of the names in the text (it moves as it grows) */
    size_t *at = NULL, n = 0, cap = 0, len = 0, text_cap = 0;
    char *text = NULL;
    while (st == TS_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && !zarr_marker(e->d_name))
            continue;
        size_t k = strlen(e->d_name), need = k + 2;
        if (n >= MAX_FILES) {
            st = ts__error(err, TS_ERR_LIMIT, "more than %u files", MAX_FILES);
            break;
        }
        if (n == cap) {
            size_t c = cap ? cap * 2 : 256;
            size_t *p = realloc(at, c * sizeof *p);
            if (!p) {
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                break;
            }
            at = p;
            cap = c;
        }
        if (text_cap - len < need) {
            size_t c = text_cap ? text_cap : 4096;
            while (c - len < need)
                c *= 2;
            char *p = realloc(text, c);
            if (!p) {
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                break;
            }
            text = p;
            text_cap = c;
        }
        at[n++] = len;
        if (kinds) {
#ifdef DT_REG
            text[len++] = e->d_type == DT_REG ? 'f' : e->d_type == DT_DIR ? 'd' : '?';
#else
            text[len++] = '?';
#endif
        }
        memcpy(text + len, e->d_name, k + 1);
        len += k + 1;
    }
    closedir(d);
    char **v = st == TS_OK ? malloc((n ? n : 1) * sizeof *v) : NULL;
    if (st == TS_OK && !v)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == TS_OK && i < n; i++)
        v[i] = text + at[i];
    free(at);
    if (st == TS_OK && n > 1 && sort_names(v, n, kinds ? 1 : 0) != 0)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (st != TS_OK) {
        free(v);
        free(text);
        return st;
    }
    names->v = v;
    names->n = names->cap = n;
    names->text = text;
    return TS_OK;
}

static ts_status read_dir(const char *dir, list *names, ts_error *err)
{
    return read_dir_kinds(dir, names, 0, err);
}

/* Subfolders a walk did not enter (not recursive, or too deep). */
typedef struct skipped {
    size_t n;
    char *first;                 /* malloc'd path of the first */
} skipped;

/* A walk: the folders entered so far, by (st_dev, st_ino), so that each is
 * read once however many links lead to it (a link back up the tree would
 * otherwise make the walk go round, and several such links branch it
 * exponentially); each folder met again is a warning. */
typedef struct walker {
    int recursive;
    struct { dev_t dev; ino_t ino; } *seen;
    size_t nseen, capseen;
    issue_store *issues;         /* for the warnings, or NULL */
    skipped *sk;                 /* the folders not entered */
} walker;

/* 1 when the folder was entered before (else recorded), -1 out of memory. */
static int entered_before(walker *w, const struct stat *sb)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (w->seen[i].dev == sb->st_dev && w->seen[i].ino == sb->st_ino)
            return 1;
    if (w->nseen == w->capseen) {
        size_t cap = w->capseen ? 2 * w->capseen : 16;
        void *p = realloc(w->seen, cap * sizeof *w->seen);
        if (!p)
            return -1;
        w->seen = p;
        w->capseen = cap;
    }
    w->seen[w->nseen].dev = sb->st_dev;
    w->seen[w->nseen++].ino = sb->st_ino;
    return 0;
}

static ts_status walk(walker *w, const char *dir, int depth, list *out, ts_error *err);

/* Regular files among `names` (read_dir_kinds of dir: kind byte first), and
 * under its folders when recursive, in order; the folders not entered are
 * counted in w->sk. */
static ts_status walk_names(walker *w, const char *dir, const list *names_, int depth,
                            list *out, ts_error *err)
{
    const list names = *names_;
    ts_status st = TS_OK;
    /* A Zarr node (an array's or a group's folder): its metadata file is
     * the member, its chunk files are not, and its child nodes are read
     * whether recursive or not (a store is one model), as are the Zarr
     * arrays of an Orbax checkpoint. */
    int zarr = 0, orbax = 0, ocdbt = 0;
    for (size_t i = 0; i < names.n; i++) {
        const char *n = names.v[i] + 1;
        /* (by the first byte first: a folder may hold thousands of files) */
        if (n[0] == '.' || n[0] == 'z')
            zarr |= zarr_marker(n);
        /* an Orbax checkpoint: its parameters are Zarr arrays in
         * subfolders, or an OCDBT store (manifest.ocdbt, data under d/) */
        if (n[0] == '_')
            orbax |= strcmp(n, "_METADATA") == 0 || strcmp(n, "_CHECKPOINT_METADATA") == 0;
        if (n[0] == 'm')
            ocdbt |= strcmp(n, "manifest.ocdbt") == 0;
    }
    if (orbax && ocdbt && w->issues) {
        st = add_issue(w->issues, TS_MODEL_FILE_ERROR, 1, dir, NULL, err,
                       "'%s': an Orbax checkpoint in an OCDBT store (manifest.ocdbt, data "
                       "under d/): tshape does not read OCDBT stores, so its arrays are not "
                       "reported", dir);
        if (st)
            return st;
        w->issues->v[w->issues->n - 1].pub.status = TS_ERR_UNSUPPORTED;
    }
    /* A Core ML package (.mlpackage): its Manifest.json names the member,
     * a .mlmodel under Data/, whose weight files are beside it. */
    int package = 0;
    for (size_t i = 0; st == TS_OK && i < names.n && !package; i++) {
        if (names.v[i][1] != 'M' || strcmp(names.v[i] + 1, "Manifest.json") != 0)
            continue;
        char *model = NULL;
        if ((st = ts__coreml_package_model(dir, &model, err)) == TS_OK && model) {
            package = 1;
            st = list_add(out, model, err);
        }
    }
    for (size_t i = 0; st == TS_OK && i < names.n; i++) {
        char kind = names.v[i][0];
        if (package && strcmp(names.v[i] + 1, "Data") == 0)
            continue;
        char *p = join(dir, names.v[i] + 1);
        struct stat sb;
        if (p && zarr && kind != 'd' && strcmp(names.v[i] + 1, ".zarray") != 0 &&
            strcmp(names.v[i] + 1, "zarr.json") != 0) {
            free(p);
            continue;
        }
        int node = 0;
        if (p && (zarr || orbax) && kind == 'd') {
            char *m1 = join(p, "zarr.json"), *m2 = join(p, ".zarray"), *m3 = join(p, ".zgroup");
            node = m1 && m2 && m3 &&
                   (access(m1, F_OK) == 0 || access(m2, F_OK) == 0 || access(m3, F_OK) == 0);
            free(m1);
            free(m2);
            free(m3);
            if (!node && zarr) { /* chunks */
                free(p);
                continue;
            }
        }
        if (p && (kind == '?' || (kind == 'd' && (w->recursive || node)))) {
            kind = stat(p, &sb) != 0     ? 0 /* a dangling link, or gone since */
                   : S_ISREG(sb.st_mode) ? 'f'
                   : S_ISDIR(sb.st_mode) ? 'd'
                                         : 0;
        }
        if (!p) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        } else if (kind == 'f') {
            st = list_add(out, p, err);
        } else if (kind == 'd' && (w->recursive || node) && depth < MAX_DEPTH) {
            int again = entered_before(w, &sb);
            if (again < 0)
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            else if (again)
                st = !w->issues ? TS_OK
                                : add_issue(w->issues, TS_MODEL_FOLDER_REPEATED, 0, p, NULL,
                                            err, "'%s': a folder already read (a symbolic "
                                            "link leads to it again): not read twice", p);
            else
                st = walk(w, p, depth + 1, out, err);
            free(p);
        } else if (kind == 'd' && w->sk->n++ == 0) {
            w->sk->first = p;
        } else {
            free(p);
        }
    }
    return st;
}

/* Regular files under dir (subfolders too when recursive), in order. */
static ts_status walk(walker *w, const char *dir, int depth, list *out, ts_error *err)
{
    list names = {NULL, 0, 0, NULL};
    ts_status st = read_dir_kinds(dir, &names, 1, err);
    if (st == TS_OK)
        st = walk_names(w, dir, &names, depth, out, err);
    list_free(&names);
    return st;
}

/* ---- assembling ------------------------------------------------------------ */

static ts_status add_member(ts_model *m, job *j, ts_error *err)
{
    m->files[m->nfiles] = j->file;
    m->paths[m->nfiles] = j->path;
    m->nfiles++;
    j->file = NULL;
    j->path = NULL;
    (void)err;
    return TS_OK;
}

static ts_status alloc_members(ts_model *m, size_t n, ts_error *err)
{
    m->files = calloc(n ? n : 1, sizeof *m->files);
    m->paths = calloc(n ? n : 1, sizeof *m->paths);
    if (!m->files || !m->paths)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    return TS_OK;
}

/* A file of the model's folder that is not a tensor file (config.json, a
 * tokenizer, README.md): kept for ts_model_other_file. Takes path. */
static ts_status add_other(ts_model *m, char *path, ts_error *err)
{
    if (!path)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (m->nothers == m->capothers) {
        size_t cap = m->capothers ? 2 * m->capothers : 8;
        char **p = realloc(m->others, cap * sizeof *p);
        if (!p) {
            free(path);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        m->others = p;
        m->capothers = cap;
    }
    m->others[m->nothers++] = path;
    return TS_OK;
}

/* 1 when `other` is a side file of the file f read from path (ONNX
 * external data, a TF.js shard, an OpenVINO .bin: a storage_key names it
 * relative to the model's folder). */
static int is_side_file(const ts_file *f, const char *path, const char *other)
{
    if (!ts_format_info_of(ts_file_format(f))->side_files)
        return 0;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    if (strncmp(other, path, dl) != 0)
        return 0;
    const char *last = NULL; /* arrays of one side file share its key */
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const char *key = ts_file_array(f, i)->storage_key;
        if (key && key != last && strcmp(other + dl, key) == 0)
            return 1;
        last = key;
    }
    return 0;
}

/* The other files less the side files of members (ONNX external data: the
 * model's tensors, not files beside it). */
static void drop_side_files(ts_model *m)
{
    for (size_t f = 0; f < m->nfiles && m->nothers > 0; f++) {
        for (size_t k = 0; k < m->nothers;) {
            if (!is_side_file(m->files[f], m->paths[f], m->others[k])) {
                k++;
                continue;
            }
            free(m->others[k]);
            memmove(m->others + k, m->others + k + 1, (m->nothers - k - 1) * sizeof *m->others);
            m->nothers--;
        }
    }
}

/* 1 when the file's first bytes match no reader (it holds no tensors: a
 * JSON file, a text file, a tokenizer). */
static int not_tensor_file(const char *path)
{
    unsigned char head[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    ssize_t k = read(fd, head, sizeof head);
    close(fd);
    return k >= 0 && ts_format_detect(head, (size_t)k) == TS_FORMAT_AUTO;
}

/* Files that failed: an issue each. */
static ts_status job_issue(ts_model *m, const job *j, ts_error *err)
{
    ts_status st = j->missing ? add_issue(&m->issues, TS_MODEL_SHARD_MISSING, 1, j->path, NULL,
                                          err, "shard '%s' is missing", j->path)
                              : add_issue(&m->issues, TS_MODEL_FILE_ERROR, 1, j->path, NULL,
                                          err, "'%s': %s", j->path,
                                          j->err ? j->err->message : "out of memory");
    if (st == TS_OK)
        m->issues.v[m->issues.n - 1].pub.status = j->status;
    return st;
}

static ts_status tensors_alloc(ts_model *m, ts_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nfiles; i++)
        n += ts_file_count(m->files[i]);
    m->tensors = malloc((n ? n : 1) * sizeof *m->tensors);
    return m->tensors ? TS_OK : ts__error(err, TS_ERR_NOMEM, "out of memory");
}

/* The model name of each tensor: its own, or for an unnamed array (.npy)
 * the member's path from the folder without its extension ("sub/embed"). */
static ts_status name_tensors(ts_model *m, ts_error *err)
{
    m->stems = calloc(m->nfiles ? m->nfiles : 1, sizeof *m->stems);
    if (!m->stems)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->ntensors; i++) {
        tensor_ref *t = &m->tensors[i];
        const ts_array *a = ts_file_array(m->files[t->file], t->array);
        if (a->name[0]) {
            t->name = a->name;
            continue;
        }
        if (!m->stems[t->file]) {
            const char *p = m->paths[t->file];
            if (m->root_len > 0 && strlen(p) > m->root_len)
                p += m->root_len;
            else if (strrchr(p, '/'))
                p = strrchr(p, '/') + 1;
            while (*p == '/')
                p++;
            /* a short stem is cut in `small`: one allocation per member */
            char small[256];
            size_t pl = strlen(p);
            char *s = pl < sizeof small ? small : malloc(pl + 1);
            if (!s)
                return ts__error(err, TS_ERR_NOMEM, "out of memory");
            memcpy(s, p, pl + 1);
            char *dot = strrchr(s, '.'), *slash = strrchr(s, '/');
            const char *base = slash ? slash + 1 : s;
            if (strcmp(base, ".zarray") == 0 || strcmp(base, "zarr.json") == 0) {
                /* a Zarr array is named by its folder (the model's own
                 * folder when it is one array) */
                if (slash) {
                    *slash = '\0';
                } else {
                    const char *root = m->paths[t->file];
                    size_t rl = m->root_len;
                    while (rl > 1 && root[rl - 1] == '/')
                        rl--;
                    size_t b = rl;
                    while (b > 0 && root[b - 1] != '/')
                        b--;
                    if (s != small)
                        free(s);
                    s = malloc(rl - b + 1);
                    if (!s)
                        return ts__error(err, TS_ERR_NOMEM, "out of memory");
                    memcpy(s, root + b, rl - b);
                    s[rl - b] = '\0';
                }
            } else if (dot && dot > s && (!slash || dot > slash + 1)) {
                *dot = '\0';
            }
            /* the escapes of a folder ts_write wrote (npyname.c) */
            m->stems[t->file] = ts__npy_name(s);
            if (s != small)
                free(s);
            if (!m->stems[t->file])
                return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        t->name = m->stems[t->file];
    }
    return TS_OK;
}

/* The member's path from the model's folder, for messages. */
static const char *member_of(const ts_model *m, size_t i)
{
    const char *p = m->paths[i];
    if (m->root_len > 0 && strlen(p) > m->root_len)
        p += m->root_len;
    while (*p == '/')
        p++;
    return p;
}

/* Without an index, names that repeat across members: the folder holds
 * separate checkpoints (two training runs, a model and its copy), not the
 * shards of one model. One warning per member that repeats names of an
 * earlier one. */
static ts_status check_repeats(ts_model *m, ts_error *err)
{
    name_table t;
    if (m->nfiles < 2)
        return TS_OK;
    if (table_init(&t, m->ntensors) != 0)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    ts_status st = TS_OK;
    size_t first = 0;
    while (st == TS_OK && first < m->ntensors) {
        size_t file = m->tensors[first].file, end = first, repeats = 0, other = NONE;
        const char *name = NULL;
        while (end < m->ntensors && m->tensors[end].file == file)
            end++;
        for (size_t i = first; i < end; i++) {
            name_slot *s = table_get(&t, m->tensors[i].name);
            if (!s) {
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                break;
            }
            if (s->owner == NONE) {
                s->owner = file;
            } else if (s->owner != file) {
                if (repeats++ == 0) {
                    name = s->name;
                    other = s->owner;
                }
            }
        }
        if (st == TS_OK && repeats > 0)
            st = add_issue(&m->issues, TS_MODEL_NAME_REPEATED, 0, m->paths[file], name, err,
                           "'%s' repeats %zu tensor name%s of '%s' (first '%s'), and there is "
                           "no index: these look like separate checkpoints, not shards of one "
                           "model", member_of(m, file), repeats, repeats == 1 ? "" : "s",
                           member_of(m, other), name);
        first = end;
    }
    free(t.v);
    return st;
}

/* Without an index: every member's arrays, in order. */
static ts_status assemble_plain(ts_model *m, ts_error *err)
{
    ts_status st = tensors_alloc(m, err);
    for (size_t i = 0; st == TS_OK && i < m->nfiles; i++)
        for (size_t k = 0; k < ts_file_count(m->files[i]); k++)
            m->tensors[m->ntensors++] = (tensor_ref){i, k, NULL};
    if (st == TS_OK)
        st = name_tensors(m, err);
    return st == TS_OK ? check_repeats(m, err) : st;
}

static void free_jobs(job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ts_file_close(jobs[i].file);
        free(jobs[i].err);
        free(jobs[i].path);
    }
    free(jobs);
}

static ts_status open_plain(ts_model *m, list *files, const ts_model_options *o,
                            ts_error *err)
{
    job *jobs = calloc(files->n ? files->n : 1, sizeof *jobs);
    if (!jobs)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < files->n; i++) {
        jobs[i].path = files->v[i]; /* the jobs own the paths now */
        jobs[i].listed = 1;         /* walk_names lists regular files only */
        files->v[i] = NULL;
    }
    int probe = !o->open || o->open->format == TS_FORMAT_AUTO;
    run_jobs(jobs, files->n, o->threads, o->open, probe);
    ts_status st = alloc_members(m, files->n, err);
    /* a file that failed but is a side file of another member (an OpenVINO
     * .bin, a TF.js shard) is no model file that failed: marked skipped */
    for (size_t i = 0; st == TS_OK && i < files->n; i++)
        for (size_t k = 0; jobs[i].status != TS_OK && !jobs[i].missing && k < files->n; k++)
            if (jobs[k].status == TS_OK && is_side_file(jobs[k].file, jobs[k].path, jobs[i].path)) {
                jobs[i].skipped = 1;
                break;
            }
    for (size_t i = 0; st == TS_OK && i < files->n; i++) {
        if (jobs[i].skipped) {
            /* a file at the top of the folder that holds no tensors */
            if (m->root_len > 0 && !strchr(jobs[i].path + m->root_len + 1, '/')) {
                st = add_other(m, jobs[i].path, err);
                jobs[i].path = NULL;
            }
            continue;
        }
        st = jobs[i].status == TS_OK ? add_member(m, &jobs[i], err) : job_issue(m, &jobs[i], err);
    }
    free_jobs(jobs, files->n);
    return st == TS_OK ? assemble_plain(m, err) : st;
}

/* ---- with an index ------------------------------------------------------------ */

/* A shard name must stay in the folder: relative, without ".." parts. */
static int safe_name(const char *s)
{
    if (!*s || s[0] == '/')
        return 0;
    for (const char *p = s; *p;) {
        const char *q = strchr(p, '/');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n + (q ? 1 : 0);
    }
    return 1;
}

/* Tensors of the members in order: first pass keeps each tensor in the
 * shard the index names; second pass the others (moved, unlisted or
 * duplicates). owner numbers run over (file, array) in order. */
static ts_status assemble_indexed(ts_model *m, name_table *t, const size_t *member_shard,
                                  size_t nshards, const char *const *shard_names,
                                  const int *shard_open, ts_error *err)
{
    ts_status st = tensors_alloc(m, err);
    if (st)
        return st;
    size_t total = 0;
    for (size_t i = 0; i < m->nfiles; i++)
        total += ts_file_count(m->files[i]);
    unsigned char *keep = calloc(total ? total : 1, 1);
    if (!keep)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (int pass = 0; st == TS_OK && pass < 2; pass++) {
        size_t pos = 0;
        for (size_t i = 0; st == TS_OK && i < m->nfiles; i++) {
            const ts_file *f = m->files[i];
            for (size_t k = 0; st == TS_OK && k < ts_file_count(f); k++, pos++) {
                const ts_array *a = ts_file_array(f, k);
                name_slot *s = table_get(t, a->name);
                if (!s) {
                    st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                    break;
                }
                int home = s->shard == member_shard[i];
                if ((pass == 0) != home)
                    continue;
                if (s->owner != NONE) {
                    st = add_issue(&m->issues, TS_MODEL_TENSOR_DUPLICATE, 1, m->paths[i], a->name,
                                   err, "tensor '%s' is in '%s' and again in '%s'", a->name,
                                   m->paths[s->owner], m->paths[i]);
                    continue;
                }
                if (!home && s->shard != NONE)
                    st = add_issue(&m->issues, TS_MODEL_TENSOR_MOVED, 0, m->paths[i], a->name, err,
                                   "tensor '%s' is in '%s', the index says '%s'", a->name,
                                   m->paths[i], shard_names[s->shard]);
                else if (!home)
                    st = add_issue(&m->issues, TS_MODEL_TENSOR_UNLISTED, 0, m->paths[i], a->name,
                                   err, "tensor '%s' in '%s' is not in the index", a->name,
                                   m->paths[i]);
                s->owner = i;
                keep[pos] = 1;
            }
        }
    }
    size_t pos = 0;
    for (size_t i = 0; i < m->nfiles; i++)
        for (size_t k = 0; k < ts_file_count(m->files[i]); k++, pos++)
            if (keep[pos])
                m->tensors[m->ntensors++] = (tensor_ref){i, k, NULL};
    free(keep);
    if (st == TS_OK)
        st = name_tensors(m, err);
    /* Tensors the index names that no member has; a missing shard is
     * reported once, not once per tensor. */
    for (size_t i = 0; st == TS_OK && i < t->cap; i++) {
        const name_slot *s = &t->v[i];
        if (s->name && s->shard != NONE && s->owner == NONE && shard_open[s->shard])
            st = add_issue(&m->issues, TS_MODEL_TENSOR_MISSING, 1, NULL, s->name, err,
                           "tensor '%s' is in the index but in no shard (the index says '%s')",
                           s->name, shard_names[s->shard]);
    }
    (void)nshards;
    return st;
}

static int cmp_issue_name(const void *a, const void *b)
{
    const issue *x = a, *y = b;
    return strcmp(x->own.name, y->own.name);
}

/* The whole file at path, in a malloc'ed buffer. */
static ts_status read_whole(const char *path, const ts_open_options *opts, char **out,
                            size_t *len, ts_error *err)
{
    if (ts__is_url(path)) {
        unsigned char *buf;
        ts_status st = ts__remote_read_all(path, opts, (size_t)1 << 30, &buf, len, NULL, err);
        if (st)
            ts__error_prefix(err, "index '%s'", path);
        *out = (char *)buf;
        return st;
    }
    int missing;
    ts_status st = ts__read_small(path, (size_t)1 << 30, out, len, &missing, err);
    if (st == TS_ERR_IO)
        ts__error_prefix(err, "index '%s'", path);
    return st;
}

ts_status ts__read_small(const char *path, size_t max, char **out, size_t *len, int *missing,
                         ts_error *err)
{
    *out = NULL;
    *missing = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0) {
        *missing = errno == ENOENT;
        return ts__error(err, TS_ERR_IO, "cannot open: %s", strerror(errno));
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > max) {
        close(fd);
        return ts__error(err, TS_ERR_IO, "not a regular file of at most %zu MiB", max >> 20);
    }
    size_t cap = (size_t)sb.st_size, n = 0;
    char *buf = malloc(cap ? cap : 1);
    if (!buf) {
        close(fd);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    while (n < cap) {
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    *out = buf;
    *len = n;
    return TS_OK;
}

/* One weight_map entry: the tensor's name and its shard's, decoded into
 * the index's arena. */
typedef struct wm_pair {
    const char *name, *shard;
} wm_pair;

/*
 * Scans the index text: the top-level object's "weight_map" object of
 * strings. Names and shard names are decoded once into `arena` (at least
 * len bytes: a decoded string and its NUL are never longer than its quoted
 * text); each name is entered in t (shard and owner NONE); *pairs (malloc'ed)
 * receives them in text order. A JSON error or a repeated key gives "index
 * 'PATH': MESSAGE (line N)".
 */
/* metadata.total_size of an index (at the "metadata" object's value), or
 * -1 when it has none (or not a non-negative integer). */
static int scan_total_size(ts__json *j, int64_t *total)
{
    ts__json_str key;
    size_t count = 0;
    int r;
    if (ts__json_object_open(j) != 0)
        return -1;
    while ((r = ts__json_object_next(j, &count, &key)) == 1) {
        char kb[10];
        int64_t v;
        if (key.len == 10)
            ts__json_decode(j->s, &key, kb);
        if (key.len == 10 && memcmp(kb, "total_size", 10) == 0 &&
            ts__json_peek(j) == TS__JSON_INTEGER) {
            if (ts__json_integer(j, &v) != 0)
                return -1;
            *total = v >= 0 ? v : -1;
        } else if (ts__json_skip(j) != 0) {
            return -1;
        }
    }
    return r < 0 ? -1 : 0;
}

static ts_status scan_index(const char *path, const char *text, size_t len, char *arena,
                            name_table *t, wm_pair **pairs, size_t *npairs, int64_t *total,
                            ts_error *err)
{
    ts__json j;
    ts__json_init(&j, text, len, NULL, NULL, NULL);
    ts__json_keys top = {NULL, 0, 0};
    ts__json_str key, val;
    size_t count = 0, used = 0, n = 0, cap = 0;
    wm_pair *v = NULL;
    int found = 0, r;
    ts_status st = TS_OK;
    *pairs = NULL;
    *npairs = 0;
    if (ts__json_peek(&j) == TS__JSON_OBJECT && ts__json_object_open(&j) == 0) {
        while ((r = ts__json_object_next(&j, &count, &key)) == 1) {
            if (ts__json_keys_add(&j, &top, &key) != 0)
                break;
            char kb[10];
            if (key.len == 10 || key.len == 8)
                ts__json_decode(text, &key, kb);
            if (key.len == 8 && memcmp(kb, "metadata", 8) == 0 &&
                ts__json_peek(&j) == TS__JSON_OBJECT) {
                if (scan_total_size(&j, total) != 0)
                    break;
                continue;
            }
            if (key.len != 10 || memcmp(kb, "weight_map", 10) != 0 ||
                ts__json_peek(&j) != TS__JSON_OBJECT) {
                if (ts__json_skip(&j) != 0)
                    break;
                continue;
            }
            found = 1;
            size_t members = 0;
            const char *prev = NULL;
            size_t prev_len = 0;
            if (ts__json_object_open(&j) != 0)
                break;
            while ((r = ts__json_object_next(&j, &members, &key)) == 1) {
                char *name = arena + used;
                ts__json_decode(text, &key, name);
                name[key.len] = '\0';
                used += key.len + 1;
                /* The model's name table finds a repeated key. */
                size_t before = t->n;
                if (!table_get(t, name)) {
                    st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                    break;
                }
                if (t->n == before) {
                    ts__json_fail(&j, TS__JSON_EDUPLICATE, key.at, key.end,
                                  "duplicate object key");
                    break;
                }
                const char *shard = NULL;
                if (ts__json_peek(&j) == TS__JSON_STRING) {
                    if (ts__json_string(&j, &val) != 0)
                        break;
                    char *d = arena + used;
                    ts__json_decode(text, &val, d);
                    d[val.len] = '\0';
                    if (prev && prev_len == val.len && memcmp(prev, d, val.len) == 0) {
                        shard = prev; /* the same shard as the entry before: shared */
                    } else {
                        shard = prev = d;
                        prev_len = val.len;
                        used += val.len + 1;
                    }
                } else if (ts__json_skip(&j) != 0) {
                    break;
                }
                if (!shard || !safe_name(shard)) {
                    st = ts__error(err, TS_ERR_FORMAT,
                                   "index '%s': tensor '%s' has a shard that is not a relative "
                                   "file name inside the folder", path, name);
                    break;
                }
                if (n == cap) {
                    size_t c2 = cap ? cap * 2 : 256;
                    wm_pair *p = realloc(v, c2 * sizeof *p);
                    if (!p) {
                        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                        break;
                    }
                    v = p;
                    cap = c2;
                }
                v[n++] = (wm_pair){name, shard};
            }
            if (st != TS_OK || j.error)
                break;
        }
        if (st == TS_OK && !j.error)
            ts__json_finish(&j);
    } else if (!j.error && ts__json_skip(&j) == 0) {
        ts__json_finish(&j);
    }
    ts__json_keys_free(&j, &top);
    if (st == TS_OK && j.error)
        st = ts__error(err, j.error == TS__JSON_ENOMEM ? TS_ERR_NOMEM : TS_ERR_FORMAT,
                       "index '%s': %s (line %zu)", path, j.error_text,
                       ts__json_line(&j, j.error_at));
    if (st == TS_OK && !found)
        st = ts__error(err, TS_ERR_FORMAT, "index '%s' has no \"weight_map\" object", path);
    if (st != TS_OK) {
        free(v);
        return st;
    }
    *pairs = v;
    *npairs = n;
    return TS_OK;
}

static ts_status open_indexed(ts_model *m, const char *dir, const char *index_path,
                              const ts_model_options *o, ts_error *err)
{
    size_t len = 0, npairs = 0;
    char *text = NULL, *arena = NULL;
    wm_pair *pairs = NULL;
    ts_status st = read_whole(index_path, o->open, &text, &len, err);
    if (st)
        return st;
    name_table t = {NULL, 0, 0};
    arena = malloc(len ? len : 1);
    st = arena && table_init(&t, len / 64) == 0
             ? scan_index(index_path, text, len, arena, &t, &pairs, &npairs, &m->total_size,
                          err)
             : ts__error(err, TS_ERR_NOMEM, "out of memory");
    free(text);
    if (st) {
        free(t.v);
        free(arena);
        return st;
    }
    list shards = {NULL, 0, 0, NULL};
    job *jobs = NULL;
    size_t *member_shard = NULL;
    int *shard_open = NULL;
    /* The shards: the distinct values, sorted (neighbours with the same
     * shard already share one string). */
    for (size_t i = 0; i < npairs; i++) {
        if (i > 0 && pairs[i].shard == pairs[i - 1].shard)
            continue;
        if ((st = list_add(&shards, ts__strdup(pairs[i].shard), err)) != TS_OK)
            goto done;
    }
    if (shards.n > 1)
        qsort(shards.v, shards.n, sizeof *shards.v, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < shards.n; i++) {
        if (u > 0 && strcmp(shards.v[u - 1], shards.v[i]) == 0)
            free(shards.v[i]);
        else
            shards.v[u++] = shards.v[i];
    }
    shards.n = u;
    size_t last = NONE;
    for (size_t i = 0; i < npairs; i++) {
        name_slot *s = table_get(&t, pairs[i].name);
        if (!s) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (last == NONE || i == 0 || pairs[i].shard != pairs[i - 1].shard) {
            const char *sh = pairs[i].shard;
            char **hit = bsearch(&sh, shards.v, shards.n, sizeof *shards.v, cmp_str);
            last = (size_t)(hit - shards.v);
        }
        s->shard = last;
    }
    jobs = calloc(shards.n ? shards.n : 1, sizeof *jobs);
    member_shard = calloc(shards.n ? shards.n : 1, sizeof *member_shard);
    shard_open = calloc(shards.n ? shards.n : 1, sizeof *shard_open);
    if (!jobs || !member_shard || !shard_open) {
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < shards.n; i++)
        if (!(jobs[i].path = dir ? join(dir, shards.v[i])
                                 : ts__url_sibling(index_path, shards.v[i]))) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            goto done;
        }
    run_jobs(jobs, shards.n, o->threads, o->open, 0);
    if ((st = alloc_members(m, shards.n, err)) != TS_OK)
        goto done;
    for (size_t i = 0; st == TS_OK && i < shards.n; i++) {
        if (jobs[i].status == TS_OK) {
            member_shard[m->nfiles] = i;
            shard_open[i] = 1;
            st = add_member(m, &jobs[i], err);
        } else {
            st = job_issue(m, &jobs[i], err);
        }
    }
    if (st == TS_OK) {
        size_t first = m->issues.n;
        st = assemble_indexed(m, &t, member_shard, shards.n, (const char *const *)shards.v,
                              shard_open, err);
        /* The missing tensors came in hash order: sort them by name. */
        size_t k = first;
        while (k < m->issues.n && m->issues.v[k].pub.kind != TS_MODEL_TENSOR_MISSING)
            k++;
        if (m->issues.n - k > 1)
            qsort(m->issues.v + k, m->issues.n - k, sizeof *m->issues.v, cmp_issue_name);
    }
    /* Files beside the index, of a format of the shards, that it does not
     * name: probably a shard left from another version of the model. (A
     * remote folder, dir NULL, cannot be listed.) */
    if (st == TS_OK && m->nfiles > 0 && dir) {
        list names = {NULL, 0, 0, NULL};
        st = read_dir(dir, &names, err);
        for (size_t i = 0; st == TS_OK && i < names.n; i++) {
            if (bsearch(&names.v[i], shards.v, shards.n, sizeof *shards.v, cmp_str) ||
                ends_with(names.v[i], ".index.json"))
                continue;
            char *p = join(dir, names.v[i]);
            ts_file *f = NULL;
            struct stat sb;
            if (!p) {
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                break;
            }
            if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
                free(p);
                continue;
            }
            if (ends_with(names.v[i], ".json")) {
                st = add_other(m, p, err); /* config.json, tokenizer files */
                continue;
            }
            if (ts_file_open(p, o->open, &f, NULL) != TS_OK && not_tensor_file(p)) {
                st = add_other(m, p, err);
                continue;
            }
            if (f) {
                int same = 0;
                for (size_t k = 0; k < m->nfiles && !same; k++)
                    same = ts_file_format(m->files[k]) == ts_file_format(f);
                if (same)
                    st = add_issue(&m->issues, TS_MODEL_SHARD_UNLISTED, 0, p, NULL, err,
                                   "'%s' is not named by the index", p);
                ts_file_close(f);
            }
            free(p);
        }
        list_free(&names);
    }
done:
    if (jobs)
        free_jobs(jobs, shards.n);
    free(member_shard);
    free(shard_open);
    free(t.v);
    list_free(&shards);
    free(pairs);
    free(arena);
    return st;
}

/* The folder of a file's path ("." when it has none), malloc'ed, or NULL. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ts__strdup(".");
    size_t n = (size_t)(slash - path) + (slash == path);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

/* A Keras 3 sharded weights index (PATH.weights.json): the shard files it
 * names (ts__keras_shards), beside it, are the members, each read by the
 * HDF5 reader. */
static ts_status open_keras_sharded(ts_model *m, const char *dir, const char *index_path,
                                    const ts_model_options *o, ts_error *err)
{
    size_t len = 0, n = 0;
    char *text = NULL, **names = NULL;
    ts_status st = read_whole(index_path, o->open, &text, &len, err);
    if (st == TS_OK) {
        st = ts__keras_shards(text, len, &names, &n, err);
        if (st)
            ts__error_prefix(err, "index '%s'", index_path);
    }
    free(text);
    list files = {NULL, 0, 0, NULL};
    for (size_t i = 0; i < n; i++) {
        if (st == TS_OK)
            st = list_add(&files, dir ? join(dir, names[i]) : ts__url_sibling(index_path, names[i]),
                          err);
        free(names[i]);
    }
    free(names);
    if (st == TS_OK)
        st = open_plain(m, &files, o, err);
    list_free(&files);
    return st;
}

/* The index file of a folder: the first *.index.json, or NULL; *names
 * receives the folder's listing (read_dir_kinds), for the caller to free. */
static ts_status find_index(const char *dir, char **out, list *names, ts_error *err)
{
    *out = NULL;
    ts_status st = read_dir_kinds(dir, names, 1, err);
    for (size_t i = 0; st == TS_OK && i < names->n && !*out; i++)
        if (ends_with(names->v[i] + 1, ".index.json")) {
            *out = join(dir, names->v[i] + 1);
            if (!*out)
                st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
    return st;
}

/* ---- the API ---------------------------------------------------------------- */

/* Checks the caller's options into *o by the rule of ts_open_options. The
 * member options are checked by ts_file_open_memory on an empty image: a
 * bad struct gives its argument error, which is renamed here. */
static ts_status read_model_options(const ts_model_options *opts, ts_model_options *o,
                                    ts_error *err)
{
    static const char fn[] = "ts_model_open";
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    if (opts) {
        ts_status st = ts__read_struct(err, fn, "opts", "options", opts, MODEL_OPTIONS_V1_SIZE,
                                       o, sizeof *o, "TS_MODEL_OPTIONS_INIT", "ts_model_options");
        if (st)
            return st;
    }
    if (o->recursive != 0 && o->recursive != 1)
        return ts__bad_arg(err, fn, "opts->recursive is %d, not 0 or 1", o->recursive);
    if (o->threads < 0 || o->threads > MAX_THREADS)
        return ts__bad_arg(err, fn, "opts->threads is %d, not 0..%d", o->threads, MAX_THREADS);
    if (o->open) {
        ts_file *f = NULL;
        ts_error e;
        ts_status st = ts_file_open_memory("", 0, o->open, &f, &e);
        ts_file_close(f);
        if (st == TS_ERR_INVALID_ARG || st == TS_ERR_UNSUPPORTED) {
            const char *msg = e.message, *colon = strstr(msg, "opts");
            return ts__fail(err, st, 0, -1, "%s: opts->open: %s", fn,
                            colon ? colon + 4 + (colon[4] == '-' ? 2 : 0) : msg);
        }
    }
    return TS_OK;
}

/* A model of the one file at path. */
static ts_status open_single(ts_model *m, const char *path, const ts_model_options *o,
                             ts_error *err)
{
    ts_file *f = NULL;
    ts_status st = ts_file_open(path, o->open, &f, err);
    if (st == TS_OK && (st = alloc_members(m, 1, err)) == TS_OK) {
        m->files[0] = f;
        f = NULL;
        if (!(m->paths[0] = ts__strdup(path)))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        m->nfiles = 1;
        if (st == TS_OK)
            st = assemble_plain(m, err);
    }
    ts_file_close(f);
    return st;
}

/* A remote model: a file, an index (its shards are the URLs beside it), or
 * a folder (a Hub repository), whose index or weights file is found first. */
static ts_status open_url(const char *path, const ts_model_options *o, ts_model **out,
                          ts_error *err)
{
    char *found = NULL;
    ts_status st = TS_OK;
    if (ts__url_is_folder(path) && (st = ts__remote_find_model(path, o->open, &found, err)))
        return st;
    const char *url = found ? found : path;
    ts_model *m = calloc(1, sizeof *m);
    if (!m) {
        free(found);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    m->total_size = -1;
    if (ends_with(url, ".index.json")) {
        if (!(m->index = ts__strdup(url)))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else
            st = open_indexed(m, NULL, m->index, o, err);
    } else {
        st = open_single(m, url, o, err);
    }
    free(found);
    if (st != TS_OK) {
        ts_model_close(m);
        return st;
    }
    *out = m;
    return TS_OK;
}

ts_status ts_model_open(const char *path, const ts_model_options *opts, ts_model **out,
                        ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, path);
    ts_model_options o;
    ts_status st = read_model_options(opts, &o, err);
    if (st)
        return st;
    ts__ok(err);
    if (ts__is_url(path))
        return open_url(path, &o, out, err);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        char *index = ts__tf_prefix_index(path); /* a checkpoint prefix: ts_file_open */
        int ok = index && stat(index, &sb) == 0;
        free(index);
        if (!ok)
            return ts__error(err, TS_ERR_IO, "cannot open: %s", strerror(e));
    }
    ts_model *m = calloc(1, sizeof *m);
    if (!m)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    m->total_size = -1;
    char *dir = NULL;
    if (S_ISDIR(sb.st_mode)) {
        m->root_len = strlen(path);
        list names = {NULL, 0, 0, NULL}; /* the folder is listed once */
        if ((st = find_index(path, &m->index, &names, err)) == TS_OK) {
            if (m->index) {
                st = open_indexed(m, path, m->index, &o, err);
            } else {
                list files = {NULL, 0, 0, NULL};
                skipped sk = {0, NULL};
                walker w = {o.recursive, NULL, 0, 0, &m->issues, &sk};
                if (entered_before(&w, &sb) < 0)
                    st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                else
                    st = walk_names(&w, path, &names, 0, &files, err);
                free(w.seen);
                if (st == TS_OK)
                    st = open_plain(m, &files, &o, err);
                /* nothing silently left out: a folder of .npy files written
                 * with subfolders (names with '/') is read with recursive */
                if (st == TS_OK && sk.n > 0)
                    st = add_issue(&m->issues, TS_MODEL_FOLDERS_SKIPPED, 0, sk.first, NULL, err,
                                   "%zu subfolder%s not read (first '%s'): %s", sk.n,
                                   sk.n == 1 ? " is" : "s are", sk.first + m->root_len +
                                   (path[m->root_len - 1] != '/'),
                                   o.recursive ? "more than 32 levels deep"
                                               : "the folder is read without its subfolders");
                free(sk.first);
                list_free(&files);
            }
        }
        list_free(&names);
    } else if (ends_with(path, ".index.json")) {
        dir = folder_of(path);
        m->index = ts__strdup(path);
        if (!dir || !m->index)
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else
            st = open_indexed(m, dir, m->index, &o, err);
    } else if (ends_with(path, ".weights.json")) {
        st = (dir = folder_of(path)) ? open_keras_sharded(m, dir, path, &o, err)
                                     : ts__error(err, TS_ERR_NOMEM, "out of memory");
    } else {
        st = open_single(m, path, &o, err);
    }
    if (st == TS_OK)
        drop_side_files(m);
    /* what the model says about itself, when the members' metadata is
     * asked for: config.json beside the shards, the index's metadata */
    if (st == TS_OK && o.open && o.open->want_metadata) {
        char problem[TS_ERROR_MESSAGE_MAX];
        const char *folder = S_ISDIR(sb.st_mode) ? path : dir;
        char *config = folder ? join(folder, "config.json") : NULL;
        if (folder && !config)
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else
            st = ts__model_meta_collect(config, m->index, m->files, m->paths, m->nfiles,
                                        &m->meta, problem, sizeof problem, err);
        if (st == TS_OK && problem[0])
            st = add_issue(&m->issues, TS_MODEL_METADATA_UNREAD, 0, config, NULL, err, "%s",
                           problem);
        free(config);
    }
    free(dir);
    if (st != TS_OK) {
        ts_model_close(m);
        return st;
    }
    *out = m;
    return TS_OK;
}

int ts_model_path(const char *path)
{
    if (!path)
        return 0;
    if (ends_with(path, ".index.json") || ends_with(path, ".weights.json"))
        return 1;
    if (ts__is_url(path))
        return ts__url_is_folder(path);
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int ts_is_url(const char *path)
{
    return path && ts__is_url(path);
}

void ts_model_close(ts_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nfiles; i++) {
        ts_file_close(m->files[i]);
        free(m->paths[i]);
        if (m->stems)
            free(m->stems[i]);
    }
    free(m->stems);
    for (size_t i = 0; i < m->issues.n; i++)
        ts__finding_free(&m->issues.v[i].own);
    free(m->issues.v);
    ts__model_meta_free(m->meta);
    for (size_t i = 0; i < m->nothers; i++)
        free(m->others[i]);
    free(m->others);
    free(m->files);
    free(m->paths);
    free(m->tensors);
    free(m->index);
    free(m);
}

const char *ts_model_index(const ts_model *m)
{
    return m ? m->index : NULL;
}

size_t ts_model_file_count(const ts_model *m)
{
    return m ? m->nfiles : 0;
}

const ts_file *ts_model_file(const ts_model *m, size_t i)
{
    return m && i < m->nfiles ? m->files[i] : NULL;
}

const char *ts_model_file_path(const ts_model *m, size_t i)
{
    return m && i < m->nfiles ? m->paths[i] : NULL;
}

size_t ts_model_count(const ts_model *m)
{
    return m ? m->ntensors : 0;
}

const ts_array *ts_model_array(const ts_model *m, size_t i, size_t *file)
{
    if (!m || i >= m->ntensors)
        return NULL;
    if (file)
        *file = m->tensors[i].file;
    return ts_file_array(m->files[m->tensors[i].file], m->tensors[i].array);
}

const char *ts_model_array_name(const ts_model *m, size_t i)
{
    return m && i < m->ntensors ? m->tensors[i].name : NULL;
}

size_t ts_model_issue_count(const ts_model *m)
{
    return m ? m->issues.n : 0;
}

size_t ts_model_error_count(const ts_model *m)
{
    return m ? m->issues.errors : 0;
}

const ts_model_issue *ts_model_issue_at(const ts_model *m, size_t i)
{
    return m && i < m->issues.n ? &m->issues.v[i].pub : NULL;
}

size_t ts_model_metadata_count(const ts_model *m)
{
    return m ? ts__model_meta_count(m->meta) : 0;
}

const ts_model_meta *ts_model_metadata_at(const ts_model *m, size_t i)
{
    return m ? ts__model_meta_at(m->meta, i) : NULL;
}

size_t ts_model_other_file_count(const ts_model *m)
{
    return m ? m->nothers : 0;
}

const char *ts_model_other_file(const ts_model *m, size_t i)
{
    return m && i < m->nothers ? m->others[i] : NULL;
}

int64_t ts__model_total_size(const ts_model *m)
{
    return m->total_size;
}

/* The regular files under dir and its subfolders (at most MAX_DEPTH
 * levels; names starting with '.' skipped; each folder once, however many
 * symbolic links lead to it), in byte order of their paths, for scan.c.
 * *paths (malloc'd, each path too) has *n entries. */
ts_status ts__folder_files(const char *dir, char ***paths, size_t *n, ts_error *err)
{
    list out = {NULL, 0, 0, NULL};
    skipped sk = {0, NULL};
    walker w = {1, NULL, 0, 0, NULL, &sk}; /* each folder once, links or not */
    struct stat sb;
    ts_status st = stat(dir, &sb) == 0 && entered_before(&w, &sb) < 0
                       ? ts__error(err, TS_ERR_NOMEM, "out of memory")
                       : walk(&w, dir, 0, &out, err);
    free(w.seen);
    free(sk.first);
    if (st) {
        list_free(&out);
        return st;
    }
    *paths = out.v;
    *n = out.n;
    return TS_OK;
}

const char *ts_model_file_label(const ts_model *m, size_t i)
{
    if (!m || i >= m->nfiles)
        return NULL;
    const char *p = m->paths[i], *index = m->index;
    size_t n = m->root_len;
    if (n > 0 && strlen(p) > n)
        return p + n + (p[n] == '/');
    const char *e = index ? strrchr(index, '/') : NULL;
    if (e && strncmp(p, index, (size_t)(e - index) + 1) == 0)
        return p + (e - index) + 1;
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}
