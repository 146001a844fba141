/*
 * cmd_help.c - tshape help [COMMAND]: the program's --help, or a command's
 * (as `tshape COMMAND --help`); a misspelt COMMAND gets the closest names.
 */
#include "cli.h"

#include <string.h>

int cmd_help(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops > 1)
        return cli_usage(ctx, "expected at most one COMMAND, not %d operands", args->nops);
    if (args->nops == 0) {
        cli_global_help(ctx);
        return CLI_OK;
    }
    const cli_command *c = cli_find_command(args->ops[0]);
    if (!c) {
        char q[128], hint[512];
        return cli_usage(ctx, "unknown command '%s'%s",
                         cli_quote(args->ops[0], strlen(args->ops[0]), q, sizeof q),
                         cli_command_suggestion(args->ops[0], hint, sizeof hint));
    }
    cli_command_help(ctx, c);
    return CLI_OK;
}
