/*
 * names.h - mapping tensor names between two sides (diff A B, convert IN
 * OUT): --strip-prefix, --strip-prefix-a, --strip-prefix-b and --rename
 * MAPFILE, one implementation for every command that offers them.
 */
#ifndef TSHAPE_CLI_NAMES_H
#define TSHAPE_CLI_NAMES_H

#include "cli.h"

/* One prefix to strip: from side A's names, B's, or both (a 2-bit set),
 * and how many names of each side it was stripped from. */
#define CLI_SIDE_A 1u
#define CLI_SIDE_B 2u
typedef struct cli_prefix {
    const char *text;
    size_t len;
    unsigned sides;
    const char *option;       /* the option that gave it, for messages */
    size_t hits[2];           /* names stripped: [0] side A, [1] side B */
} cli_prefix;

/* One line of a rename file: side A's name `from` is `to`. */
typedef struct cli_rename {
    char *from, *to;
} cli_rename;

/* Every --strip-prefix and --rename of a command line. */
typedef struct cli_names {
    cli_prefix *prefixes;     /* in command-line order */
    size_t nprefixes;
    cli_rename *renames;      /* sorted by from */
    size_t nrenames;
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
 * B after mapping: the first prefix of that side that matches stripped
 * (and counted in its hits), then A's renames. NULL when out of memory. */
char *cli_names_map(cli_names *n, int is_a, const char *name);

/* A warning for each prefix that matched no name of its sides (a typo, or
 * a prefix of the other side): "warning: --strip-prefix-a 'module.'
 * matches no name of A". */
void cli_names_warn_unused(cli_ctx *ctx, const cli_names *n);

#endif
