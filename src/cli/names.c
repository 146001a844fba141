/*
 * names.c - --strip-prefix and --rename: the name mapping of diff and
 * convert (see names.h).
 */
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    static const struct {
        const char *option;
        unsigned sides;
    } kinds[] = {{"strip-prefix", CLI_SIDE_A | CLI_SIDE_B},
                 {"strip-prefix-a", CLI_SIDE_A},
                 {"strip-prefix-b", CLI_SIDE_B}};
    memset(o, 0, sizeof *o);
    /* the given options in command-line order, whichever of the three */
    for (int g = 0; g < args->ngiven; g++) {
        const cli_given *gv = &args->given[g];
        for (size_t k = 0; k < (two_sides ? 3u : 1u); k++) {
            if (!gv->opt->name || strcmp(gv->opt->name, kinds[k].option) != 0)
                continue;
            cli_prefix *grown = realloc(o->prefixes, (o->nprefixes + 1) * sizeof *grown);
            if (!grown)
                return cli_error(ctx, NULL, "out of memory");
            o->prefixes = grown;
            cli_prefix *p = &o->prefixes[o->nprefixes++];
            memset(p, 0, sizeof *p);
            p->text = gv->value;
            p->len = strlen(gv->value);
            p->sides = two_sides ? kinds[k].sides : CLI_SIDE_A;
            p->option = kinds[k].option;
        }
    }
    const char *v;
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

char *cli_names_map(cli_names *o, int is_a, const char *name)
{
    unsigned side = is_a ? CLI_SIDE_A : CLI_SIDE_B;
    for (size_t i = 0; i < o->nprefixes; i++) {
        cli_prefix *p = &o->prefixes[i];
        if ((p->sides & side) && strncmp(name, p->text, p->len) == 0) {
            p->hits[!is_a]++;
            name += p->len;
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

void cli_names_warn_unused(cli_ctx *ctx, const cli_names *o)
{
    for (size_t i = 0; i < o->nprefixes; i++) {
        const cli_prefix *p = &o->prefixes[i];
        if (p->hits[0] + p->hits[1] > 0)
            continue;
        char q[256];
        cli_notice(ctx, NULL, "warning: --%s '%s' matches no name of %s", p->option,
                   cli_quote(p->text, p->len, q, sizeof q),
                   p->sides == (CLI_SIDE_A | CLI_SIDE_B) ? "A or B"
                   : p->sides == CLI_SIDE_A              ? "A"
                                                         : "B");
    }
}
