/*
 * names.c - --strip-prefix and --rename: the name mapping of diff and
 * convert (see names.h).
 */
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "A:B" split at its last ':' unless that ends the value ("arg:" is one
 * prefix for both sides; "arg::" strips "arg:" from A only). */
static int parse_prefix(const char *v, cli_prefix *p)
{
    memset(p, 0, sizeof *p);
    size_t n = strlen(v);
    const char *colon = n > 1 ? strrchr(v, ':') : NULL;
    if (colon && colon[1] == '\0') {
        /* a value ending in ':' names one prefix; "X::" is X: for A only */
        colon = n >= 2 && v[n - 2] == ':' ? v + n - 1 : NULL;
    }
    if (!colon) {
        p->a = p->b = v;
        p->alen = p->blen = n;
        return 0;
    }
    size_t an = (size_t)(colon - v);
    if (!(p->own = malloc(an + 1)))
        return -1;
    memcpy(p->own, v, an);
    p->own[an] = '\0';
    p->a = an ? p->own : NULL;
    p->alen = an;
    p->b = colon[1] ? colon + 1 : NULL;
    p->blen = p->b ? strlen(p->b) : 0;
    return 0;
}

static int cmp_rename(const void *x, const void *y)
{
    return strcmp(((const cli_rename *)x)->from, ((const cli_rename *)y)->from);
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* MAPFILE: "A_NAME B_NAME" per line, blank lines and '#' comments skipped. */
static int read_renames(cli_ctx *ctx, const char *path, cli_names *o)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_error(ctx, path, "cannot open: %s", strerror(errno));
    char line[8192];
    size_t cap = 0;
    int lineno = 0, status = CLI_OK;
    while (status == CLI_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line, *a, *b;
        size_t an, bn;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        a = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        an = (size_t)(p - a);
        while (*p == ' ' || *p == '\t')
            p++;
        b = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        bn = (size_t)(p - b);
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (bn == 0 || (*p && *p != '\n')) {
            char where[64];
            snprintf(where, sizeof where, "line %d", lineno);
            status = cli_error(ctx, path, "%s: expected 'A_NAME B_NAME'", where);
            break;
        }
        if (o->nrenames == cap) {
            cap = cap ? cap * 2 : 16;
            cli_rename *r = realloc(o->renames, cap * sizeof *r);
            if (!r) {
                status = cli_error(ctx, path, "out of memory");
                break;
            }
            o->renames = r;
        }
        cli_rename *r = &o->renames[o->nrenames];
        r->from = dup_n(a, an);
        r->to = dup_n(b, bn);
        if (!r->from || !r->to) {
            free(r->from), free(r->to);
            status = cli_error(ctx, path, "out of memory");
            break;
        }
        o->nrenames++;
    }
    fclose(f);
    if (o->nrenames > 1)
        qsort(o->renames, o->nrenames, sizeof *o->renames, cmp_rename);
    return status;
}

void cli_names_free(cli_names *o)
{
    for (size_t i = 0; i < o->nprefixes; i++)
        free(o->prefixes[i].own);
    free(o->prefixes);
    for (size_t i = 0; i < o->nrenames; i++) {
        free(o->renames[i].from);
        free(o->renames[i].to);
    }
    free(o->renames);
    memset(o, 0, sizeof *o);
}

static int get_names(cli_ctx *ctx, const cli_args *args, cli_names *o, int two_sides)
{
    memset(o, 0, sizeof *o);
    int pos = 0;
    const char *v;
    while ((v = cli_opt_next(args, "strip-prefix", &pos)) != NULL) {
        cli_prefix *grown = realloc(o->prefixes, (o->nprefixes + 1) * sizeof *grown);
        if (!grown)
            return cli_error(ctx, NULL, "out of memory");
        o->prefixes = grown;
        cli_prefix *p = &o->prefixes[o->nprefixes];
        if (!two_sides) {
            memset(p, 0, sizeof *p);
            p->a = v;
            p->alen = strlen(v);
        } else if (parse_prefix(v, p) != 0) {
            return cli_error(ctx, NULL, "out of memory");
        }
        o->nprefixes++;
    }
    if ((v = cli_opt(args, "rename")) && read_renames(ctx, v, o) != CLI_OK)
        return CLI_ERROR;
    return CLI_OK;
}

int cli_names_get(cli_ctx *ctx, const cli_args *args, cli_names *o)
{
    return get_names(ctx, args, o, 1);
}

int cli_names_get_one_side(cli_ctx *ctx, const cli_args *args, cli_names *o)
{
    return get_names(ctx, args, o, 0);
}

char *cli_names_map(const cli_names *o, int is_a, const char *name)
{
    for (size_t i = 0; i < o->nprefixes; i++) {
        const cli_prefix *p = &o->prefixes[i];
        const char *pre = is_a ? p->a : p->b;
        size_t n = is_a ? p->alen : p->blen;
        if (pre && strncmp(name, pre, n) == 0) {
            name += n;
            break;
        }
    }
    if (is_a && o->nrenames) {
        cli_rename key = {(char *)(uintptr_t)name, NULL};
        const cli_rename *r = bsearch(&key, o->renames, o->nrenames, sizeof *r, cmp_rename);
        if (r)
            name = r->to;
    }
    return dup_n(name, strlen(name));
}
