/* cmd_info.c - tshape info (being written). */
#include "cli.h"

static int cmd_info(cli_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage_error(ctx, "not implemented yet");
}

const cli_command cli_cmds_info[] = {
    {"info", cmd_info, "info [OPTIONS] FILE...", "report on each array in each file"},
    {NULL, NULL, NULL, NULL},
};
