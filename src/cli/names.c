/*
 * names.c - --strip-prefix and --rename: the name mapping of diff and
 * convert (see names.h), read into the library's ts_namemap.
 */
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes of a rename file read. */
#define RENAME_FILE_MAX ((size_t)256 << 20)

/* MAPFILE: read whole, then parsed by ts_namemap_read_renames. */
static int read_renames(cli_ctx *ctx, const char *path, cli_names *o)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_error(ctx, path, "cannot open: %s", strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    int status = CLI_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 8192;
            char *p = cap <= RENAME_FILE_MAX ? realloc(text, cap) : NULL;
            if (!p) {
                status = cli_error(ctx, path, cap <= RENAME_FILE_MAX ? "out of memory"
                                                                     : "larger than 256 MiB");
                break;
            }
            text = p;
        }
        size_t n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f))
                status = cli_error(ctx, path, "cannot read: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    ts_error err;
    if (status == CLI_OK && ts_namemap_read_renames(o->map, text, len, &err) != TS_OK)
        status = cli_error(ctx, path, "%s", err.message);
    free(text);
    return status;
}

void cli_names_free(cli_names *o)
{
    ts_namemap_free(o->map);
    free(o->option);
    memset(o, 0, sizeof *o);
}

static int get_names(cli_ctx *ctx, const cli_args *args, cli_names *o, int two_sides)
{
    static const struct {
        const char *option;
        unsigned sides;
    } kinds[] = {{"strip-prefix", TS_SIDE_A | TS_SIDE_B},
                 {"strip-prefix-a", TS_SIDE_A},
                 {"strip-prefix-b", TS_SIDE_B}};
    memset(o, 0, sizeof *o);
    ts_error err;
    if (ts_namemap_new(&o->map, &err) != TS_OK)
        return cli_error(ctx, NULL, "%s", err.message);
    /* the given options in command-line order, whichever of the three */
    for (int g = 0; g < args->ngiven; g++) {
        const cli_given *gv = &args->given[g];
        for (size_t k = 0; k < (two_sides ? 3u : 1u); k++) {
            if (!gv->opt->name || strcmp(gv->opt->name, kinds[k].option) != 0)
                continue;
            size_t n = ts_namemap_prefix_count(o->map);
            const char **grown = realloc(o->option, (n + 1) * sizeof *grown);
            if (!grown)
                return cli_error(ctx, NULL, "out of memory");
            o->option = grown;
            o->option[n] = kinds[k].option;
            if (ts_namemap_add_prefix(o->map, gv->value, two_sides ? kinds[k].sides : TS_SIDE_A,
                                      &err) != TS_OK)
                return cli_error(ctx, NULL, "%s", err.message);
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
    const char *m = ts_namemap_apply(o->map, is_a ? TS_SIDE_A : TS_SIDE_B, name);
    size_t n = strlen(m) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, m, n);
    return d;
}

void cli_names_warn_unused(cli_ctx *ctx, const cli_names *o)
{
    for (size_t i = 0; i < ts_namemap_prefix_count(o->map); i++) {
        const ts_namemap_prefix *p = ts_namemap_prefix_at(o->map, i);
        if (p->hits_a + p->hits_b > 0)
            continue;
        char q[256];
        cli_notice(ctx, NULL, "warning: --%s '%s' matches no name of %s", o->option[i],
                   cli_quote(p->prefix, strlen(p->prefix), q, sizeof q),
                   p->sides == (TS_SIDE_A | TS_SIDE_B) ? "A or B"
                   : p->sides == TS_SIDE_A             ? "A"
                                                       : "B");
    }
}
