/*
 * names.h - mapping tensor names between two sides (diff A B, convert IN
 * OUT) from the command line: --strip-prefix, --strip-prefix-a,
 * --strip-prefix-b and --rename MAPFILE into a ts_namemap (the library's
 * rule), one implementation for every command that offers them.
 */
#ifndef TSHAPE_CLI_NAMES_H
#define TSHAPE_CLI_NAMES_H

#include "cli.h"

/* Every --strip-prefix and --rename of a command line. */
typedef struct cli_names {
    ts_namemap *map;
    const char **option;      /* per prefix of map: the option that gave it */
} cli_names;

/*
 * Reads the prefixes of args into *n (zeroed first; free it with
 * cli_names_free even on failure), in command-line order: every
 * --strip-prefix (repeatable) is one prefix, taken literally (':' and all),
 * for both sides; every --strip-prefix-a for side A only, every
 * --strip-prefix-b for side B only; and the last --rename MAPFILE, "A_NAME
 * B_NAME" per line, blank lines and '#' comments skipped. Returns CLI_OK,
 * or CLI_ERROR after reporting the problem (file, line).
 */
int cli_names_get(cli_ctx *ctx, const cli_args *args, cli_names *n);
/* The same for a command with one side (convert): every --strip-prefix is
 * a prefix of side A. */
int cli_names_get_one_side(cli_ctx *ctx, const cli_args *args, cli_names *n);
void cli_names_free(cli_names *n);

/* A new string (free it) holding the name of a tensor of side A (is_a) or
 * B after mapping (ts_namemap_apply, which counts the prefix's hits). NULL
 * when out of memory. */
char *cli_names_map(cli_names *n, int is_a, const char *name);

/* A warning for each prefix that matched no name of its sides (a typo, or
 * a prefix of the other side): "warning: --strip-prefix-a 'module.'
 * matches no name of A". */
void cli_names_warn_unused(cli_ctx *ctx, const cli_names *n);

#endif
