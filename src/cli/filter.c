/*
 * filter.c - which entries a command reports: every --filter GLOB (any may
 * match; none given selects all) and no --exclude GLOB, by the library's
 * rule (ts_name_selected). Shared by the commands that list arrays by
 * name, so they select alike.
 */
#include "cli.h"

void cli_filter_init(cli_filter *f, const cli_args *args)
{
    f->filter = cli_opt_values(args, "filter", &f->nfilter);
    f->exclude = cli_opt_values(args, "exclude", &f->nexclude);
}

int cli_filter_match(const cli_filter *f, const char *name)
{
    return ts_name_selected(name, f->filter, f->nfilter, f->exclude, f->nexclude);
}
