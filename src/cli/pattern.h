/*
 * pattern.h - shared by the cmd_pattern*.c files: option parsing for the
 * pattern commands, an integer-list parser, and the command handlers that
 * live outside cmd_pattern.c (which holds the command table).
 */
#ifndef TSHAPE_CLI_PATTERN_H
#define TSHAPE_CLI_PATTERN_H

#include "cli.h"

/* Options of the pattern commands; each command allows a subset. */
typedef struct pat_opts {
    const char *origin;   /* iter --origin TUPLE */
    int offsets;          /* iter --offsets */
    const char *op;       /* reduce --op NAME (accepted, ignored) */
    const char *layers;   /* jagged --layers L1,L2,... */
    const char *slice;    /* jagged --slice I,J,... */
    int print;            /* jagged --print */
} pat_opts;

#define PAT_ORIGIN  0x01u
#define PAT_OFFSETS 0x02u
#define PAT_OP      0x04u
#define PAT_LAYERS  0x08u
#define PAT_SLICE   0x10u
#define PAT_PRINT   0x20u

/*
 * getopt_long over the options in `allowed` plus --json and --help. On
 * --help prints the command's help with `extra` (may be NULL) and returns -1
 * with *status 0; on a bad option returns -1 with *status 2; else the index
 * of the first operand.
 */
int pat_options(cli_ctx *ctx, int argc, char **argv, unsigned allowed, const char *extra,
                pat_opts *o, int *status);

/*
 * Parses an integer list "1,2", "(1,2)", "[1,2]", "7", "()" (signed, at
 * most TS_MAX_NDIM values) into out[0..*n-1]. On error prints
 * "tshape: WHAT 'text': <problem>" and returns CLI_ERROR.
 */
int pat_parse_ints(const char *text, const char *what, int64_t *out, int *n);

/* Handlers in cmd_pattern_einsum.c, cmd_pattern_einops.c, cmd_pattern_jagged.c. */
int pat_cmd_einsum(cli_ctx *ctx, int argc, char **argv);
int pat_cmd_compose(cli_ctx *ctx, int argc, char **argv);
int pat_cmd_rearrange(cli_ctx *ctx, int argc, char **argv);
int pat_cmd_reduce(cli_ctx *ctx, int argc, char **argv);
int pat_cmd_repeat(cli_ctx *ctx, int argc, char **argv);
int pat_cmd_parse_shape(cli_ctx *ctx, int argc, char **argv);
int pat_cmd_jagged(cli_ctx *ctx, int argc, char **argv);

#endif
