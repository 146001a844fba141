/*
 * nameselect.c - ts_name_selected: which tensors a listing or a diff
 * selects by name, --filter and --exclude globs (fnmatch(3), no flags), one
 * rule for the library and every command that offers them.
 */
#include "../core/internal.h"

#include <fnmatch.h>

/* 1 when name matches one of the n globs of list. */
static int any_match(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(list[i], name, 0) == 0)
            return 1;
    return 0;
}

/* 1 when list is a valid array of n non-NULL strings. */
static int valid_list(const char *const *list, size_t n)
{
    if (!list)
        return n == 0;
    for (size_t i = 0; i < n; i++)
        if (!list[i])
            return 0;
    return 1;
}

int ts_name_selected(const char *name, const char *const *filter, size_t nfilter,
                     const char *const *exclude, size_t nexclude)
{
    if (!name || !valid_list(filter, nfilter) || !valid_list(exclude, nexclude))
        return 0;
    if (nfilter > 0 && !any_match(filter, nfilter, name))
        return 0;
    return !any_match(exclude, nexclude, name);
}
