/*
 * filter.c - which entries a command reports: every --filter GLOB (any may
 * match; none given selects all) and no --exclude GLOB. Shared by the
 * commands that list arrays by name, so they select alike.
 */
#include "cli.h"

#include <fnmatch.h>

void cli_filter_init(cli_filter *f, const cli_args *args)
{
    int pos = 0;
    f->args = args;
    f->include = 0;
    while (cli_opt_next(args, "filter", &pos))
        f->include++;
}

/* 1 when name matches one of the values of --NAME. */
static int any_match(const cli_args *args, const char *opt, const char *name)
{
    const char *glob;
    int pos = 0;
    while ((glob = cli_opt_next(args, opt, &pos)) != NULL)
        if (fnmatch(glob, name, 0) == 0)
            return 1;
    return 0;
}

int cli_filter_match(const cli_filter *f, const char *name)
{
    if (f->include && !any_match(f->args, "filter", name))
        return 0;
    return !any_match(f->args, "exclude", name);
}
