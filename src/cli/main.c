/*
 * main.c - tshape's entry point: the command table (from commands.def), the
 * program's --help, and the run: global options, the command's options,
 * the command, and the exit status.
 */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

const cli_command cli_commands[] = {
#define CLI_GROUP(id, title)
#define CLI_COMMAND(name, group, handler, options, synopsis, summary) \
    {name, CLI_GROUP_##group, handler, options, synopsis, summary},
#include "commands.def"
#undef CLI_GROUP
#undef CLI_COMMAND
};

const size_t cli_command_count = sizeof cli_commands / sizeof *cli_commands;

const char *const cli_group_titles[CLI_GROUP_COUNT] = {
#define CLI_GROUP(id, title) title,
#define CLI_COMMAND(name, group, handler, options, synopsis, summary)
#include "commands.def"
#undef CLI_GROUP
#undef CLI_COMMAND
};

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

void cli_global_help(cli_ctx *ctx)
{
    out_str(ctx, "Usage: tshape [OPTIONS] COMMAND [OPTIONS] [ARGS...]\n"
                 "Tensor shape arithmetic and saved-tensor inspection.\n"
                 "\n"
                 "SHAPE is a tuple such as (3,4,5), [3,4,5], (3,) or 5. Commands that take\n"
                 "SHAPE... read shapes from stdin, one per line, when none is given.\n");
    for (int g = 0; g < CLI_GROUP_COUNT; g++) {
        out_printf(ctx, "\n%s:\n", cli_group_titles[g]);
        for (size_t i = 0; i < cli_command_count; i++) {
            const cli_command *c = &cli_commands[i];
            if (c->group != (cli_group)g)
                continue;
            if (strlen(c->synopsis) <= 32)
                out_printf(ctx, "  %-32s  %s\n", c->synopsis, c->summary);
            else /* a long synopsis gets a line of its own */
                out_printf(ctx, "  %s\n  %-32s  %s\n", c->synopsis, "", c->summary);
        }
    }
    out_str(ctx, "\nOptions (before or after the command):\n");
    cli_print_options(ctx, cli_global_options, NULL);
    out_str(ctx, "'tshape COMMAND --help' shows the options of a command.\n"
                 "\n"
                 "Exit status: 0 success or true, 1 false (eq, contiguous, view),\n"
                 "2 bad input, usage or I/O error.\n"
                 "See tshape(1) for details.\n");
}

/* Runs the command named by argv[0] on argv[1..argc). */
static int run_command(cli_ctx *ctx, int argc, char **argv)
{
    cli_args args;
    ctx->cmd = cli_find_command(argv[0]);
    if (!ctx->cmd) {
        char q[128];
        return cli_usage(ctx, "unknown command '%s'", cli_quote(argv[0], strlen(argv[0]), q, sizeof q));
    }
    int status = CLI_OK;
    if (cli_parse_args(ctx, argc, argv, &args))
        status = ctx->cmd->run(ctx, &args);
    cli_args_free(&args);
    return status;
}

int main(int argc, char **argv)
{
    static cli_ctx ctx; /* 64 KiB of output buffer: not on the stack */
    int status = CLI_OK;

    /* Write errors are reported by out_finish; EPIPE ends output quietly. */
    signal(SIGPIPE, SIG_IGN);

    int first = cli_parse_global(&ctx, argc, argv);
    if (first > 0)
        status = run_command(&ctx, argc - first, argv + first);
    return out_finish(&ctx, status);
}
