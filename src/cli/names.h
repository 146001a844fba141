/*
 * names.h - mapping tensor names between two sides (diff A B, convert IN
 * OUT): --strip-prefix A[:B] and --rename MAPFILE, one implementation for
 * every command that offers them.
 */
#ifndef TSHAPE_CLI_NAMES_H
#define TSHAPE_CLI_NAMES_H

#include "cli.h"

/* One --strip-prefix value: what to remove from side A's names and from
 * side B's (NULL: nothing on that side). */
typedef struct cli_prefix {
    const char *a, *b;
    size_t alen, blen;
    char *own;
} cli_prefix;

/* One line of a rename file: side A's name `from` is `to`. */
typedef struct cli_rename {
    char *from, *to;
} cli_rename;

/* Every --strip-prefix and --rename of a command line. */
typedef struct cli_names {
    cli_prefix *prefixes;
    size_t nprefixes;
    cli_rename *renames;      /* sorted by from */
    size_t nrenames;
} cli_names;

/*
 * Reads every --strip-prefix (repeatable) and the last --rename of args
 * into *n (zeroed first; free it with cli_names_free even on failure).
 * "A:B" is split at its last ':' unless that ends the value ("arg:" is one
 * prefix for both sides; "arg::" strips "arg:" from A only). MAPFILE has
 * "A_NAME B_NAME" per line, blank lines and '#' comments skipped. Returns
 * CLI_OK, or CLI_ERROR after reporting the problem (file, line).
 */
int cli_names_get(cli_ctx *ctx, const cli_args *args, cli_names *n);
/* The same for a command with one side (convert): each --strip-prefix
 * value is one prefix, ':' included, for side A. */
int cli_names_get_one_side(cli_ctx *ctx, const cli_args *args, cli_names *n);
void cli_names_free(cli_names *n);

/* A new string (free it) holding the name of a tensor of side A (is_a) or
 * B after mapping: the first matching prefix of that side stripped, then
 * A's renames. NULL when out of memory. */
char *cli_names_map(const cli_names *n, int is_a, const char *name);

#endif
